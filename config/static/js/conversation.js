// On a conversation page: when the other player writes, offer to show the new
// message instead of reloading under the reader's half-typed reply.
(function () {
  "use strict";
  var notice = document.querySelector("[data-new-message-from]");
  if (!notice) return;
  var other = notice.getAttribute("data-new-message-from");
  document.addEventListener("site:notify", function (event) {
    var data = event.detail || {};
    if (data.type === "message" && data.from === other) notice.hidden = false;
  });
})();
