// The board renderers, one JS module per game, named by the game's kind (games/kinds) and
// listed on the page in #renderers ({% board_renderers %}): for each game, the module's URL
// and the options it needs besides the position (Four Tac Toe's line table).
//
// What a renderer module exports (docs/renderers.md says it in full):
//
// /**
//  * @typedef {Object} RendererModule
//  * @property {(host: HTMLElement, options: {play: (token: string) => void,
//  *              onHover?: (token: string|null) => void, [option: string]: any}) => Renderer} createRenderer
//  *   Draws the board into host; options are the page's (play: send a move) and the game's own
//  *   (#renderers' options, e.g. lines). The Renderer answers update(game, view), and the methods
//  *   the screen reader and the pages call (docs/renderers.md).
//  * @property {boolean} scoreIsCount  The score counts pieces on the board (Reversi, Ataxx): a
//  *   capture is the opponent's count going down, not the mover's score going up.
//  * @property {() => [string, string]} sideNames  The two sides' names, in the page's language.
//  * @property {(token: string, mover: number) => number} [moverAfter]  Who moves after token was
//  *   played by mover, when it is not simply the other side (Quantum's two-part moves).
//  */

const TABLE = readJson("renderers", {});

/** The renderer module of the game slug (a RendererModule). */
export function loadRenderer(slug) {
  const entry = TABLE[slug];
  if (!entry) return Promise.reject(new Error(`no renderer for ${slug}`));
  return import(entry.module);
}

/** The options the game's renderer (and the screen reader) need besides the position: {} for most. */
export function rendererOptions(slug) {
  return TABLE[slug]?.options ?? {};
}

export function readJson(id, fallback = null) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : fallback;
}
