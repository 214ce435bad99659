// The game page's chat panel (docs/protocol.md, "Chat"). It rides on the game's
// socket (client.js): on every (re)connection it asks for the history, then the
// server pushes each line this reader may see. Lines are inserted with
// textContent only, so HTML shows as typed and links are not clickable.

import { botMark } from "./text.js";

const MAX_SHOWN = 200;

export function startChat(client) {
  const panel = document.getElementById("chat");
  if (!panel) return null; // the chat is switched off in this reader's settings
  const list = panel.querySelector("#chat-lines");
  const form = panel.querySelector("#chat-form");
  const input = panel.querySelector("#chat-text");
  const status = panel.querySelector("#chat-status");
  const spectatorsBox = panel.querySelector("#chat-show-spectators");
  const labels = panel.dataset;
  const shown = new Map(); // line id -> <li>, so a line in both the history and an event shows once
  let canReport = false; // registered readers only

  function say(text, { error = false } = {}) {
    status.textContent = text;
    status.classList.toggle("error", error);
  }

  function add(line) {
    if (shown.has(line.id)) return;
    const item = document.createElement("li");
    item.className = "chat-line";
    item.dataset.id = line.id;
    item.dataset.room = line.room;
    if (line.side !== null) item.dataset.side = line.side;
    item.classList.toggle("mine", line.mine);
    const name = document.createElement("span");
    name.className = "chat-name";
    name.textContent = line.name;
    if (line.bot) name.append(" ", botMark()); // a BOT account's line (issue #41)
    item.append(name);
    if (line.room === "spectators") {
      const tag = document.createElement("span");
      tag.className = "chat-room";
      tag.textContent = labels.spectator;
      item.append(" ", tag);
    }
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = line.text;
    item.append(" ", text);
    if (!line.mine && canReport) {
      const report = document.createElement("button");
      report.type = "button";
      report.className = "link chat-report";
      report.textContent = labels.report;
      report.title = labels.reportTitle;
      report.addEventListener("click", () => {
        report.disabled = true;
        client.sendRaw({ type: "chat_report", line: line.id });
      });
      item.append(" ", report);
      // A tap on the line shows its Report (a touch screen has no hover); another tap, or one on another line, hides it.
      item.addEventListener("click", (event) => {
        if (event.target.closest(".chat-report")) return;
        list.querySelectorAll(".chat-line.chosen").forEach((other) => { if (other !== item) other.classList.remove("chosen"); });
        item.classList.toggle("chosen");
      });
    }
    shown.set(line.id, item);
    list.append(item);
    while (shown.size > MAX_SHOWN) {
      const [oldest, node] = shown.entries().next().value;
      node.remove();
      shown.delete(oldest);
    }
    list.scrollTop = list.scrollHeight;
  }

  function onHistory(message) {
    panel.hidden = !message.enabled;
    if (!message.enabled) return;
    input.maxLength = message.max_length;
    canReport = message.can_report;
    form.hidden = message.presets_only || !message.can_write;
    panel.querySelector(".chat-presets").hidden = !message.can_write;
    panel.querySelector("#chat-presets-note").hidden = !(message.presets_only && message.can_write);
    panel.querySelector("#chat-reader-note").hidden = message.can_write;
    spectatorsBox.checked = message.show_spectators;
    spectatorsBox.closest("label").hidden = message.room !== "players";
    // The history is the truth: lines hidden by a moderator meanwhile go, missing ones come.
    list.replaceChildren();
    shown.clear();
    message.lines.forEach(add);
  }

  function remove(id) {
    shown.get(id)?.remove();
    shown.delete(id);
  }

  // Route the chat's messages and refusals here; everything else to the page as before.
  const handlers = client.handlers;
  const pageError = handlers.onError;
  handlers.onError = (message) => {
    if (typeof message.code === "string" && message.code.startsWith("chat_")) {
      say(message.message, { error: true });
      return;
    }
    pageError?.(message);
  };
  const pageConnection = handlers.onConnection;
  handlers.onConnection = (state) => {
    pageConnection?.(state);
    if (state === "open") client.sendRaw({ type: "chat_history" });
  };
  handlers.onOther = (message) => {
    const handler = {
      chat_history: () => onHistory(message),
      chat: () => add(message.line),
      chat_hidden: () => remove(message.id),
      chat_reported: () => say(labels.reported),
    }[message.type];
    handler?.();
  };
  if (client.socket.readyState === WebSocket.OPEN) client.sendRaw({ type: "chat_history" });

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (client.sendRaw({ type: "chat", text })) {
      input.value = "";
      say("");
    }
  });
  for (const button of panel.querySelectorAll("[data-preset]")) {
    button.addEventListener("click", () => client.sendRaw({ type: "chat", preset: button.dataset.preset }));
  }
  spectatorsBox.addEventListener("change", () => {
    client.sendRaw({ type: "chat_settings", show_spectators: spectatorsBox.checked });
  });
  return { get lines() { return Array.from(shown.values(), (node) => node.textContent); } };
}
