// Starts GraphiQL (served from this host, no other). Signed in through the web interface, requests ride
// the session: the session cookie plus the X-CSRFToken header a page of another site cannot read or set.
// Otherwise a bearer token goes in the Headers tab.
(function () {
  'use strict';
  function cookie(name) {
    var match = document.cookie.match(new RegExp('(?:^|;\\s*)' + name + '=([^;]+)'));
    return match ? decodeURIComponent(match[1]) : '';
  }
  var root = document.getElementById('graphiql');
  var signedIn = root.getAttribute('data-signed-in') === 'true';
  var headers = {};
  var csrf = cookie('csrftoken');
  if (signedIn && csrf) {
    headers['X-CSRFToken'] = csrf;
  }
  var url = new URL('/graphql', window.location.origin).toString();
  var fetcher = GraphiQL.createFetcher({
    url: url,
    headers: headers,
    fetch: function (input, init) {
      return window.fetch(input, Object.assign({}, init, { credentials: 'same-origin' }));
    }
  });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultEditorToolsVisibility: !signedIn,
      defaultHeaders: signedIn ? undefined : '{\n  "Authorization": "Bearer <your API token>"\n}'
    })
  );
}());
