// What the browser tests ask of the map app's page: the bands it drew, the colour the
// canvas shows at a cell, the figures of the panel, routes and reach through the
// page's own functions (the clicks and keys are tested separately).

/** The band drawn for every cell, by cell id. */
export const bands = (page) => page.evaluate(() => window.hexrisk.bands());

/** Waits for the map to be ready (the first grid drawn, state restored). */
export async function ready(page) {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
}

/**
 * The colour the hex canvas shows at the centre of `cell` (streets hidden, so that
 * only the hexes are read), as `#rrggbb`.
 */
export function hexPixel(page, cell) {
  return page.evaluate(async (id) => {
    const { map } = window.hexrisk;
    const streets = map.getPane('streets');
    streets.style.visibility = 'hidden';
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const centre = window.hexrisk.centreOf(id);
    const point = map.latLngToContainerPoint(centre);
    const canvas = map.getPane('hexes').querySelector('canvas');
    const mapBox = map.getContainer().getBoundingClientRect();
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const x = Math.round((point.x + mapBox.left - box.left) * scale);
    const y = Math.round((point.y + mapBox.top - box.top) * scale);
    const [r, g, b, a] = canvas.getContext('2d').getImageData(x, y, 1, 1).data;
    streets.style.visibility = '';
    return { colour: `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`, alpha: a };
  }, cell);
}

/** The panel's figures by `data-testid`, of the sections given. */
export function figures(page, section = '#metrics') {
  return page.locator(`${section} [data-testid]`).evaluateAll((els) => Object.fromEntries(els.map((el) => [el.dataset.testid, el.textContent.replace(/\s+/g, ' ').trim()])));
}

/** Routes between two points through the page and waits for the panel. */
export async function routeBetween(page, a, b, options) {
  await page.evaluate(([from, to, o]) => window.hexrisk.route(from, to, o), [a, b, options ?? {}]);
  await page.waitForSelector('#metrics:not([hidden])');
  return figures(page);
}

/** Switches the data source and waits until the grid is drawn from it. */
export async function selectSource(page, source) {
  await page.selectOption('#source', source);
  await page.waitForFunction((s) => document.body.dataset.drawnFrom === s, source);
}

/** Whether every point of `line` ([lng, lat] pairs) is inside the map's view. */
export function inView(page, line) {
  return page.evaluate((coords) => {
    const bounds = window.hexrisk.map.getBounds();
    return coords.every(([lng, lat]) => bounds.contains([lat, lng]));
  }, line);
}
