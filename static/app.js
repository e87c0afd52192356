// deskgraph web interface: progressive enhancement of the server-rendered ticket page. Everything
// works without this file except editing a comment in place.
(function () {
  'use strict';

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : '';
  }

  // Call a web JSON endpoint with the CSRF header; resolves with the body, rejects with its error.
  function send(method, url, body) {
    var options = {
      method: method,
      credentials: 'same-origin',
      headers: { 'X-CSRFToken': csrfToken(), 'Accept': 'application/json' }
    };
    if (body !== undefined) {
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(function (resp) {
      return resp.json().catch(function () { return null; }).then(function (data) {
        if (!resp.ok || !data || data.success !== true) {
          throw new Error((data && data.error) || ('The server answered ' + resp.status));
        }
        return data;
      });
    });
  }

  function announce(text) {
    var region = document.getElementById('status-message');
    if (region) { region.textContent = text; }
  }

  // What a person types, as the HTML the server keeps: a blank line starts a paragraph, a line break stays
  // one, nothing typed is markup (the same rule as the forms without JavaScript, `sanitize::text_to_html`).
  function textToHtml(text) {
    var escape = function (line) {
      return line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;').replace(/'/g, '&#39;');
    };
    return text.replace(/\r\n?/g, '\n').trim().split(/\n\s*\n/).filter(function (p) {
      return p.trim() !== '';
    }).map(function (p) {
      return '<p>' + p.split('\n').map(function (l) { return escape(l.replace(/\s+$/, '')); }).join('<br>') + '</p>';
    }).join('');
  }

  function showError(el, message) {
    if (!el) { return; }
    el.textContent = message;
    el.hidden = false;
  }

  function setUpComment(article) {
    var id = article.getAttribute('data-comment-id');
    var editButton = article.querySelector('.js-edit');
    var editor = article.querySelector('.comment-editor');
    var body = article.querySelector('.comment-body');
    if (editButton && editor && body) {
      var textarea = editor.querySelector('textarea');
      var error = editor.querySelector('.js-edit-error');
      editButton.hidden = false;
      editButton.addEventListener('click', function () {
        textarea.value = body.innerText.trim();
        editor.hidden = false;
        body.hidden = true;
        editButton.hidden = true;
        textarea.focus();
      });
      var close = function () {
        editor.hidden = true;
        body.hidden = false;
        editButton.hidden = false;
        error.hidden = true;
        editButton.focus();
      };
      editor.querySelector('.js-cancel').addEventListener('click', close);
      editor.addEventListener('submit', function (event) {
        event.preventDefault();
        send('PATCH', '/tickets/comments/' + id + '/edit/', { body: textToHtml(textarea.value) })
          .then(function (data) {
            addHistory(article, body, data.comment);
            body.innerHTML = data.comment.body; // sanitised by the server
            var marker = article.querySelector('.edited');
            marker.querySelector('.edited-at').textContent = ' ' + (data.comment.edited_at || '');
            marker.hidden = false;
            close();
            announce('Comment saved.');
          })
          .catch(function (err) { showError(error, err.message); });
      });
    }
    var deleteForm = article.querySelector('.js-delete-form');
    if (deleteForm) {
      deleteForm.addEventListener('submit', function (event) {
        event.preventDefault();
        send('DELETE', '/tickets/comments/' + id + '/delete/')
          .then(function () {
            article.remove();
            announce('Comment deleted.');
          })
          .catch(function (err) { showError(deleteForm.querySelector('.js-delete-error'), err.message); });
      });
    }
  }

  // Keep the shown history in step after an in-place edit: the old text moves into it.
  function addHistory(article, body, comment) {
    var history = article.querySelector('.history');
    if (!history) { return; }
    var item = document.createElement('li');
    var meta = document.createElement('p');
    meta.className = 'history-meta';
    meta.textContent = 'Before the edit on ' + (comment.edited_at || '') + ':';
    var old = document.createElement('div');
    old.className = 'history-body rich';
    while (body.firstChild) { old.appendChild(body.firstChild); }
    item.appendChild(meta);
    item.appendChild(old);
    history.querySelector('.history-list').appendChild(item);
    history.hidden = false;
  }

  function setUpCommentForm(form) {
    var ticketId = form.getAttribute('data-ticket-id');
    form.addEventListener('submit', function (event) {
      // A chosen file goes with the form's own multipart post.
      var file = form.querySelector('input[type=file]');
      if (file && file.files && file.files.length > 0) { return; }
      // So does time logged with the comment.
      var minutes = form.querySelector('input[name=minutes]');
      if (minutes && minutes.value.trim() !== '') { return; }
      event.preventDefault();
      var internal = form.querySelector('input[name=comment_type][value=internal]');
      var payload = {
        body: textToHtml(form.querySelector('textarea[name=body]').value),
        comment_type: internal && internal.checked ? 'internal' : 'public'
      };
      send('POST', '/tickets/' + ticketId + '/comments/add/', payload)
        .then(function (data) {
          window.location.hash = 'comment-' + data.comment.id;
          window.location.reload();
        })
        .catch(function (err) { showError(form.querySelector('.js-form-error'), err.message); });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    Array.prototype.forEach.call(document.querySelectorAll('.comment[data-comment-id]'), setUpComment);
    var form = document.getElementById('comment-form');
    if (form) { setUpCommentForm(form); }
  });
}());
