// One renderer module per game. Import paths are literal so they resolve next
// to this file whatever name the static files storage gives the page's entry.
const LOADERS = {
  reversi: () => import("./reversi.js"),
  ataxx: () => import("./ataxx.js"),
  ultimate_ttt: () => import("./ultimate_ttt.js"),
  quantum_ttt: () => import("./quantum_ttt.js"),
  four_tac_toe: () => import("./four_tac_toe.js"),
};

export function loadRenderer(slug) {
  const loader = LOADERS[slug];
  if (!loader) return Promise.reject(new Error(`no renderer for ${slug}`));
  return loader();
}

export function readJson(id, fallback = null) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : fallback;
}
