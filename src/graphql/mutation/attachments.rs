//! Attachment mutations: add (a GraphQL multipart request with an `Upload`) and delete, over
//! `service::attachments`.
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::Attachment;
use crate::service::attachments;
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, Upload, ID};

/// Attachment mutations.
#[derive(Default)]
pub struct AttachmentMutation;

/// A file to attach (sent as a GraphQL multipart request).
#[derive(InputObject)]
pub struct AddAttachmentInput {
    /// The ticket.
    ticket_id: ID,
    /// One of its comments (its author or staff only); a file on an internal comment is internal.
    comment_id: Option<ID>,
    /// The file; its type is detected from the bytes.
    file: Upload,
}

/// Names one attachment.
#[derive(InputObject)]
pub struct DeleteAttachmentInput {
    /// The attachment.
    id: ID,
}

/// The new attachment.
#[derive(SimpleObject)]
pub struct AddAttachmentPayload {
    /// The attachment as stored.
    attachment: Attachment,
}

/// The deleted attachment's id.
#[derive(SimpleObject)]
pub struct DeleteAttachmentPayload {
    /// Global id of the deleted attachment.
    deleted_attachment_id: ID,
}

#[Object]
impl AttachmentMutation {
    /// Attach a file to a ticket the viewer can see, or to one of its comments.
    async fn add_attachment(
        &self,
        ctx: &Context<'_>,
        input: AddAttachmentInput,
    ) -> Result<AddAttachmentPayload> {
        let (req, actor) = viewer(ctx)?;
        let ticket_id = ids::decode(&input.ticket_id, "Ticket", "ticketId")?;
        let comment_id = ids::decode_opt(input.comment_id.as_ref(), "Comment", "commentId")?;
        let upload = input
            .file
            .value(ctx)
            .map_err(|_| AppError::field("file", "the file part of the request is missing"))?;
        let spooled =
            attachments::spool_file(upload.content, req.state.config.max_upload_bytes).await?;
        let new = attachments::NewAttachment {
            ticket_id,
            comment_id,
            filename: upload.filename,
        };
        let created = attachments::create(
            req.state.write_deps(crate::domain::Channel::Graphql),
            &*req.state.storage,
            &actor,
            new,
            spooled,
        )
        .await?;
        Ok(AddAttachmentPayload {
            attachment: Attachment(created),
        })
    }

    /// Delete an attachment (soft; its uploader, staff or admins).
    async fn delete_attachment(
        &self,
        ctx: &Context<'_>,
        input: DeleteAttachmentInput,
    ) -> Result<DeleteAttachmentPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.id, "Attachment", "id")?;
        attachments::delete(&req.state.db, &actor, id).await?;
        Ok(DeleteAttachmentPayload {
            deleted_attachment_id: ids::encode("Attachment", id),
        })
    }
}
