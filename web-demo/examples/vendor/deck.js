// The parts of deck.gl the deck.gl example uses. deck.gl's own script bundles do
// not load side by side without a bundler, so scripts/serve-demo.mjs serves this
// module bundled (esbuild) at /vendor/deck.js.
export { Deck } from '@deck.gl/core';
export { H3HexagonLayer, MVTLayer } from '@deck.gl/geo-layers';
