// The game socket (docs/protocol.md): reconnects with backoff, keeps only the
// newest snapshot, and makes sure a move is delivered exactly once.

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 15000;
const JITTER = 0.3;
// A move's ack normally comes within a few hundred ms. Past ACK_RESEND_MS the move
// is sent again (same id: the server applies it once and acks it again), after
// ACK_TIMEOUT_MS once more, then at twice the last wait up to ACK_TIMEOUT_MAX_MS:
// in a one-minute game five silent seconds lose it, but a server that is slow
// because it is overloaded only gets slower for each resend and sync it must answer
// (docs/performance.md: resent moves take the locked path).
const ACK_RESEND_MS = 1500;
const ACK_TIMEOUT_MS = 4000;
const ACK_TIMEOUT_MAX_MS = 16000;
const PING_EVERY_MS = 25000;
const CLOSE_NOT_FOUND = 4404;
const CLOSE_SIGNED_OUT = 4001; // the session that opened the socket ended
const CLOSE_BOT = 4403; // a BOT account: it plays through the API, never here

export function backoffDelay(attempt) {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** attempt);
  // Jitter spreads reconnects out so a restarted server is not hit by everyone at once.
  return Math.round(base * (1 - JITTER + Math.random() * 2 * JITTER));
}

function randomId() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class GameClient {
  // handlers: onSnapshot(game, info), onError(msg), onPresence(msg), onWatchers(count),
  // onConnection(state: "open" | "lost" | "gone"), onRedirect(url), onAck(msg),
  // onPending(move message | null, sent: whether it left now or waits for the socket),
  // onResend(move message, ms waited, sent: false while there is no socket to send it on),
  // onRefused(move message, error message),
  // onOther(msg) for any other message type
  constructor(gameId, initial, handlers) {
    this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/game/${gameId}/`;
    this.game = initial.game;
    this.you = initial.you;
    this.online = [true, true];
    // Presence notices can arrive out of order (a player's sockets may live on
    // different server processes); each carries a sequence number, newest wins.
    this.presenceSeq = -1;
    // How many people watch (not seated); numbered like presence notices, newest wins.
    this.watchers = null;
    this.watchersSeq = -1;
    this.handlers = handlers;
    this.pending = null; // the move sent and not yet acknowledged
    this.attempt = 0;
    this.syncCounter = 0;
    this.closedByUs = false;
    // The browser knows when its network goes: the socket is given up at once (it
    // may otherwise stay "open" for minutes), and tried again as soon as it is back.
    this.onOffline = () => this.drop();
    this.onOnline = () => this.reconnectNow();
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    this.connect();
  }

  connect() {
    clearTimeout(this.reconnectTimer);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    // Events of a socket given up (drop()) are ignored: its close may come much later.
    socket.addEventListener("open", () => socket === this.socket && this.onOpen());
    socket.addEventListener("message", (event) => socket === this.socket && this.onMessage(event));
    socket.addEventListener("close", (event) => socket === this.socket && this.onClose(event));
  }

  get connected() {
    return this.socket.readyState === WebSocket.OPEN;
  }

  // Give up the socket now, as if it had closed: the page says so and reconnects.
  drop() {
    if (this.closedByUs || this.socket.readyState === WebSocket.CLOSED) return;
    const socket = this.socket;
    this.socket = { readyState: WebSocket.CLOSED, send() {}, close() {} }; // until the next connect()
    socket.close();
    this.onClose({ code: 1006 });
  }

  reconnectNow() {
    if (this.closedByUs || this.socket.readyState !== WebSocket.CLOSED) return;
    this.attempt = 0;
    this.connect();
  }

  onOpen() {
    this.attempt = 0;
    this.handlers.onConnection?.("open");
    // A move that was in flight when the line dropped is sent again with the same
    // ply and id: the server applies it at most once and acks it either way.
    if (this.pending) {
      this.sendRaw(this.pending.message);
      this.armAckTimer(ACK_TIMEOUT_MS);
    }
    clearInterval(this.pinger);
    // The ping says which version the board shows: a board left behind by a lost
    // event is sent the state (docs/protocol.md).
    this.pinger = setInterval(() => this.sendRaw({ type: "ping", v: this.game?.v }), PING_EVERY_MS);
  }

  onClose(event) {
    clearInterval(this.pinger);
    clearTimeout(this.ackTimer);
    if (this.closedByUs) return;
    if (event.code === CLOSE_NOT_FOUND || event.code === CLOSE_BOT) {
      this.handlers.onConnection?.("gone");
      return;
    }
    if (event.code === CLOSE_SIGNED_OUT) {
      // Signed out (here or in another tab): the page must stop showing our seat.
      location.reload();
      return;
    }
    this.handlers.onConnection?.("lost");
    const delay = backoffDelay(this.attempt++);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  close() {
    this.closedByUs = true;
    clearTimeout(this.reconnectTimer);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    this.socket.close();
  }

  onMessage(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    const handler = {
      state: () => this.accept(message, "state"),
      event: () => {
        this.accept(message, message.event);
        if (message.ack) this.onAck(message.ack); // a move of ours, acknowledged inside its event
      },
      ack: () => this.onAck(message),
      error: () => this.onError(message),
      presence: () => this.onPresence(message),
      watchers: () => this.onWatchers(message.count, message.seq, false),
      redirect: () => this.handlers.onRedirect?.(message.url),
      ratings: () => this.handlers.onRatings?.(message), // a finished game's rating changes, pushed once applied
    }[message.type];
    // Messages of other parts of the page (the chat, chat.js) go to them.
    (handler ?? (() => this.handlers.onOther?.(message)))();
  }

  accept(message, event) {
    if ("you" in message) this.you = message.you;
    // A full state is the truth about presence whatever its number: after the
    // server's Redis lost its data the numbers start again from elsewhere.
    if (message.online && (message.type === "state" || (message.presence_seq ?? 0) >= this.presenceSeq)) {
      this.online = message.online;
      this.presenceSeq = message.presence_seq ?? this.presenceSeq;
    }
    if (message.type === "state" && typeof message.watchers === "number") {
      this.onWatchers(message.watchers, message.watchers_seq, true);
    }
    const game = message.patch ? this.patched(message) : message.game;
    if (!game) return;
    if (this.game && game.v < this.game.v) return; // older than what we show: never go back
    if (this.game && game.v === this.game.v && message.type !== "state") return;
    // Events carry whole snapshots, but a gap means we missed one (and maybe a
    // presence or a draw offer): ask for the full state to be sure.
    if (this.game && message.type === "event" && game.v > this.game.v + 1) this.sync();
    const previous = this.game;
    this.game = game;
    if (this.pending && game.ply > this.pending.message.ply && game.status !== "active") this.clearPending();
    this.handlers.onSnapshot?.(game, { event, previous, you: this.you, online: this.online });
  }

  // A move event may carry only what the move changed, on top of version
  // `base`: applied to exactly that version, else the full state is asked for.
  patched(message) {
    if (!this.game || message.v <= this.game.v) return null; // nothing to apply it to, or old news
    if (this.game.v !== message.base) {
      this.sync();
      return null;
    }
    const { added, ...changed } = message.patch;
    return { ...this.game, ...changed, v: message.v, moves: this.game.moves.concat(added) };
  }

  onAck(message) {
    if (this.pending && message.id === this.pending.message.id) this.clearPending();
    this.handlers.onAck?.(message);
  }

  onError(message) {
    if (this.pending && message.id === this.pending.message.id) {
      const move = this.pending.message;
      this.clearPending();
      this.handlers.onRefused?.(move, message);
    }
    this.handlers.onError?.(message);
  }

  onPresence(message) {
    if (message.seq !== undefined) {
      if (message.seq <= this.presenceSeq) return; // older than what we show
      this.presenceSeq = message.seq;
    }
    this.online = this.online.slice();
    this.online[message.side] = message.online;
    this.handlers.onPresence?.(message, this.online);
  }

  // A state is always right (as for presence); a notice only when newer than the last one.
  onWatchers(count, seq, fromState) {
    if (!fromState && seq !== undefined && seq <= this.watchersSeq) return;
    this.watchersSeq = seq ?? this.watchersSeq;
    this.watchers = count;
    this.handlers.onWatchers?.(count);
  }

  clearPending() {
    if (!this.pending) return;
    this.pending = null;
    clearTimeout(this.ackTimer);
    this.handlers.onPending?.(null);
  }

  get busy() {
    return this.pending !== null;
  }

  move(token) {
    if (this.pending) return false; // one move at a time: the next one needs the new ply
    const message = { type: "move", move: token, ply: this.game.ply, id: randomId() };
    this.pending = { message, sentAt: performance.now() };
    // Without a socket the move waits and goes when it reconnects (onOpen); the page says which.
    const sent = this.sendRaw(message);
    this.handlers.onPending?.(message, sent);
    this.armAckTimer(ACK_RESEND_MS);
    return true;
  }

  armAckTimer(delay) {
    clearTimeout(this.ackTimer);
    this.ackTimer = setTimeout(() => {
      if (!this.pending) return;
      // No ack in time: maybe the move or its reply was lost. Resend (harmless,
      // see above) and ask for the state so the board is right whatever happened.
      const { message, sentAt } = this.pending;
      const sent = this.sendRaw(message);
      this.handlers.onResend?.(message, Math.round(performance.now() - sentAt), sent);
      this.sync();
      this.armAckTimer(delay === ACK_RESEND_MS ? ACK_TIMEOUT_MS : Math.min(2 * delay, ACK_TIMEOUT_MAX_MS));
    }, delay);
  }

  command(type) {
    return this.sendRaw({ type });
  }

  sync() {
    this.syncCounter += 1;
    return this.sendRaw({ type: "sync", id: this.syncCounter });
  }

  sendRaw(message) {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }
}
