// deskgraph web interface: progressive enhancement of the server-rendered pages. Everything works
// without this file except editing a comment in place, the queue's live rows and its keyboard shortcuts;
// the ticket page's quick edits save on change here and with their Save button without it; files are dropped
// or pasted here and chosen with the file input without it.
(function () {
  'use strict';

  // A message of the page's language: the page carries the script's words as `data-msg-<name>` on its body
  // (base.html), English here when it does not; `%s` in it stands for `value`.
  function msg(name, fallback, value) {
    var text = (document.body && document.body.getAttribute('data-msg-' + name)) || fallback;
    return value === undefined ? text : text.replace('%s', function () { return String(value); });
  }

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
          throw new Error((data && data.error) || msg('server-answered', 'The server answered %s', resp.status));
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
            addHistory(article, body);
            body.innerHTML = data.comment.body; // sanitised by the server
            var marker = article.querySelector('.edited');
            // The endpoint's time is the contract's UTC; the page shows times in the reader's zone.
            marker.querySelector('.edited-at').textContent = ' ' + msg('just-now', 'just now');
            marker.hidden = false;
            close();
            announce(msg('comment-saved', 'Comment saved.'));
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
            announce(msg('comment-deleted', 'Comment deleted.'));
          })
          .catch(function (err) { showError(deleteForm.querySelector('.js-delete-error'), err.message); });
      });
    }
  }

  // Keep the shown history in step after an in-place edit: the old text moves into it.
  function addHistory(article, body) {
    var history = article.querySelector('.history');
    if (!history) { return; }
    var item = document.createElement('li');
    var meta = document.createElement('p');
    meta.className = 'history-meta';
    meta.textContent = msg('before-edit', 'Before your edit just now:');
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

  // Files dropped on a form, or pasted into its text, join those chosen in its file input (`data-drop` names
  // the form), so the form's own multipart post sends them all.
  function setUpDrop(input) {
    var zone = document.querySelector(input.getAttribute('data-drop'));
    if (!zone || !window.DataTransfer) { return; }
    var hint = zone.querySelector('.drop-hint');
    if (hint) { hint.hidden = false; }
    function add(files) {
      var all = new DataTransfer();
      Array.prototype.forEach.call(input.files, function (f) { all.items.add(f); });
      Array.prototype.forEach.call(files, function (f) { all.items.add(f); });
      input.files = all.files;
      announce(all.files.length === 1 ? msg('file-attached', '1 file attached.')
        : msg('files-attached', '%s files attached.', all.files.length));
    }
    zone.addEventListener('dragover', function (event) {
      if (event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') >= 0) {
        event.preventDefault();
        zone.classList.add('dropping');
      }
    });
    zone.addEventListener('dragleave', function () { zone.classList.remove('dropping'); });
    zone.addEventListener('drop', function (event) {
      zone.classList.remove('dropping');
      if (event.dataTransfer && event.dataTransfer.files.length > 0) {
        event.preventDefault();
        add(event.dataTransfer.files);
      }
    });
    zone.addEventListener('paste', function (event) {
      var files = event.clipboardData && event.clipboardData.files;
      if (files && files.length > 0) {
        event.preventDefault();
        add(files);
      }
    });
  }

  // The ticket page's side panel saves each change as it is made: the form's own post (the same endpoint
  // and service call as without JavaScript), then the panel and the history are swapped in from the page
  // it leads back to, with its confirmation. Changes made while a save is under way are sent after it.
  function setUpQuickEdit(form) {
    var saving = false;
    var again = false;
    var timer = null;
    var button = form.querySelector('.js-quick-save');
    if (button) { button.hidden = true; }
    var error = form.querySelector('.js-quick-error');
    function save() {
      timer = null;
      if (saving) { again = true; return; }
      saving = true;
      again = false;
      form.classList.add('saving');
      fetch(form.action, {
        method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(form)),
        headers: { 'Accept': 'text/html' }
      }).then(function (resp) {
        return resp.text().then(function (text) {
          return { ok: resp.ok, page: new DOMParser().parseFromString(text, 'text/html'), status: resp.status };
        });
      }).then(function (answer) {
        saving = false;
        form.classList.remove('saving');
        if (!answer.ok || !answer.page.getElementById('ticket-side')) {
          // A refused value comes back as the page with the message in the panel; anything else as the error page.
          var said = answer.page.querySelector('#quick-edit .field-error:not([hidden])') ||
            answer.page.querySelector('.error-text');
          showError(error, said ? said.textContent : msg('server-answered', 'The server answered %s', answer.status));
          return;
        }
        if (again) { save(); return; }
        swapTicket(answer.page);
      }).catch(function (err) {
        saving = false;
        form.classList.remove('saving');
        showError(error, err.message);
      });
    }
    function soon() {
      if (timer !== null) { window.clearTimeout(timer); }
      // A burst of changes (arrow keys through a list) is one save.
      timer = window.setTimeout(save, 500);
    }
    form.addEventListener('change', soon);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (timer !== null) { window.clearTimeout(timer); }
      save();
    });
  }

  // Put in the side panel, the history and the confirmation of `page` (the ticket page as it is now),
  // keeping the focus where it was.
  function swapTicket(page) {
    var focused = document.activeElement && document.activeElement.id;
    ['ticket-side', 'history'].forEach(function (id) {
      var now = page.getElementById(id);
      var shown = document.getElementById(id);
      if (now && shown) { shown.replaceWith(document.importNode(now, true)); }
    });
    var flash = page.getElementById('flash');
    var shownFlash = document.getElementById('flash');
    if (flash) {
      if (shownFlash) {
        shownFlash.textContent = flash.textContent;
      } else {
        var article = document.querySelector('article.ticket');
        if (article) { article.parentNode.insertBefore(document.importNode(flash, true), article); }
      }
      announce(flash.textContent);
    }
    var form = document.getElementById('quick-edit');
    if (form) { setUpQuickEdit(form); }
    if (focused && document.getElementById(focused)) { document.getElementById(focused).focus(); }
  }

  // The queue: its rows follow the live feed (server-sent events naming each visible ticket that changed) by
  // reading the page again and swapping in its rows, and the keyboard moves through them. A queue where boxes
  // are ticked is not swapped under the user: it says that tickets changed instead.
  function setUpQueue(results) {
    var notice = document.getElementById('live-notice');
    var me = results.getAttribute('data-me');
    var current = null;
    var timer = null;
    var reading = false;
    var again = false;

    function rows() {
      return Array.prototype.slice.call(document.querySelectorAll('#queue-results tr.ticket-row'));
    }
    function selected() {
      return current === null ? null
        : document.querySelector('#queue-results tr.ticket-row[data-ticket-id="' + current + '"]');
    }
    function select(row, focus) {
      rows().forEach(function (r) { r.classList.remove('selected'); });
      if (!row) { return; }
      row.classList.add('selected');
      current = row.getAttribute('data-ticket-id');
      var link = row.querySelector('a.ticket-title');
      if (focus && link) { link.focus(); }
    }
    function numberOf(row) {
      var link = row.querySelector('td a');
      return link ? link.textContent : msg('the-ticket', 'the ticket');
    }
    function say(text) {
      notice.textContent = text + ' ';
      var reload = document.createElement('a');
      reload.href = window.location.href;
      reload.textContent = msg('reload', 'Reload');
      notice.appendChild(reload);
      notice.hidden = false;
    }
    function read() {
      if (reading) { again = true; return; }
      if (document.querySelector('#queue-results input[type=checkbox]:checked')) {
        say(msg('tickets-changed', 'Tickets changed.'));
        return;
      }
      reading = true;
      fetch(window.location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
        .then(function (resp) {
          if (!resp.ok) { throw new Error(msg('server-answered', 'The server answered %s', resp.status)); }
          return resp.text();
        })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('queue-results');
          if (!fresh) { throw new Error('no rows'); }
          var focused = results.contains(document.activeElement);
          results.innerHTML = fresh.innerHTML; // the server's own escaped markup, as the page itself
          select(selected(), focused);
          announce(msg('queue-updated', 'The queue was updated.'));
        })
        .catch(function () { say(msg('tickets-changed', 'Tickets changed.')); })
        .then(function () {
          reading = false;
          if (again) { again = false; soon(); }
        });
    }
    // A burst of events is one read, and a busy desk reads the queue at most every two seconds per page.
    var lastRead = 0;
    function soon() {
      if (timer !== null) { return; }
      var wait = Math.max(300, lastRead + 2000 - Date.now());
      timer = window.setTimeout(function () { timer = null; lastRead = Date.now(); read(); }, wait);
    }
    function assignToMe(row) {
      var body = new URLSearchParams();
      body.set('csrfmiddlewaretoken', csrfToken());
      body.set('assigned_to', me);
      fetch('/tickets/' + row.getAttribute('data-ticket-id') + '/edit/', {
        method: 'POST', credentials: 'same-origin', body: body, headers: { 'Accept': 'text/html' }
      }).then(function (resp) {
        if (!resp.ok) { throw new Error(msg('server-answered', 'The server answered %s', resp.status)); }
        announce(msg('assigned', 'Assigned %s to you.', numberOf(row)));
        soon();
      }).catch(function () { say(msg('assign-failed', 'Could not assign %s to you.', numberOf(row))); });
    }

    // The feed is closed when the page is left, and opened again (with a fresh read) when the browser shows
    // it from its back/forward cache: a page kept there with its feed open holds one of the browser's few
    // connections to the server, and a handful of them stall every later page.
    var feed = results.getAttribute('data-live');
    var source = null;
    function listen() {
      if (!feed || !window.EventSource || source) { return; }
      source = new EventSource(feed);
      var mine = source;
      source.addEventListener('open', function () { results.setAttribute('data-live-state', 'open'); });
      source.addEventListener('ticket', soon);
      source.addEventListener('end', function () {
        mine.close();
        say(msg('signed-out', 'You were signed out; the queue no longer updates.'));
      });
      source.addEventListener('error', function () {
        results.setAttribute('data-live-state', 'closed');
        if (mine.readyState === window.EventSource.CLOSED) { say(msg('no-updates', 'The queue no longer updates.')); }
      });
    }
    listen();
    window.addEventListener('pagehide', function () {
      if (source) { source.close(); source = null; }
      results.setAttribute('data-live-state', 'closed');
    });
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) { listen(); soon(); }
    });

    var dialog = document.getElementById('shortcuts');
    document.addEventListener('keydown', function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) { return; }
      var target = event.target;
      if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName))) { return; }
      if (dialog && dialog.open) { return; }
      var list = rows();
      var row = selected();
      var at = row ? list.indexOf(row) : -1;
      switch (event.key) {
        case 'j': select(list[Math.min(at + 1, list.length - 1)], true); break;
        case 'k': select(list[Math.max(at - 1, 0)], true); break;
        case 'o': if (row) { window.location.href = '/tickets/' + current + '/'; } break;
        case 'r': if (row) { window.location.href = '/tickets/' + current + '/#reply'; } break;
        case 'a': if (row && me) { assignToMe(row); } break;
        case '/': document.getElementById('q').focus(); break;
        case '?': if (dialog) { dialog.showModal(); } break;
        default: return;
      }
      event.preventDefault();
    });
  }

  // The browser's time zone, for the server to show dates in when the user has not chosen one in settings.
  function keepTimeZone() {
    var zone = '';
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { return; }
    var match = document.cookie.match(/(?:^|;\s*)tz=([^;]*)/);
    var kept = match ? decodeURIComponent(match[1]) : '';
    if (zone && zone !== kept) {
      document.cookie = 'tz=' + encodeURIComponent(zone) + '; path=/; max-age=31536000; samesite=lax';
    }
  }

  document.addEventListener('DOMContentLoaded', function () {
    keepTimeZone();
    Array.prototype.forEach.call(document.querySelectorAll('.comment[data-comment-id]'), setUpComment);
    var form = document.getElementById('comment-form');
    if (form) {
      setUpCommentForm(form);
      // `r` in the queue opens a ticket here, ready to reply.
      if (window.location.hash === '#reply') { document.getElementById('comment-body').focus(); }
    }
    var results = document.getElementById('queue-results');
    if (results) { setUpQueue(results); }
    var quick = document.getElementById('quick-edit');
    if (quick) { setUpQuickEdit(quick); }
    Array.prototype.forEach.call(document.querySelectorAll('input[type=file][data-drop]'), setUpDrop);
  });
}());
