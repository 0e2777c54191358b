// Safe reach on the map: the cells reachable from a point within a number of
// minutes, each shaded by the least exposure of any way to it within the budget
// (lighter: safer to reach), and the area's outline.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';

/** Five shades, light to dark, for exposure quintiles within one answer. */
const SHADES = ['#edf8fb', '#b3cde3', '#8c96c6', '#8856a7', '#810f7c'];

export class ReachView {
  constructor(map, { pane, ring }) {
    Object.assign(this, { map, pane, ring });
    this.layer = L.layerGroup().addTo(map);
    this.canvas = L.canvas({ pane, padding: 0.3 });
  }

  clear() {
    this.layer.clearLayers();
    document.getElementById('reach-result').hidden = true;
    delete document.body.dataset.reach;
  }

  show(answer, { fit }) {
    this.layer.clearLayers();
    const sorted = answer.cells.map((c) => c.exposure).sort((a, b) => a - b);
    const quantile = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const cuts = [0.2, 0.4, 0.6, 0.8].map(quantile);
    for (const cell of answer.cells) {
      const shade = cuts.filter((cut) => cell.exposure > cut).length;
      L.polygon(this.ring(cell.h3), {
        renderer: this.canvas, pane: this.pane, weight: 0.5, color: '#3f007d', opacity: 0.6,
        fillColor: SHADES[shade], fillOpacity: 0.75, interactive: false,
      }).addTo(this.layer);
    }
    const outline = L.geoJSON(answer.boundary, { pane: this.pane, style: { color: '#3f007d', weight: 3, fill: false, className: 'reach-outline' } }).addTo(this.layer);
    L.circleMarker([answer.origin.lat, answer.origin.lng], { pane: this.pane, radius: 7, color: '#fff', weight: 2, fillColor: '#0a7d32', fillOpacity: 1 }).bindTooltip('Start').addTo(this.layer);
    if (fit && outline.getBounds().isValid()) this.map.fitBounds(outline.getBounds(), { padding: [24, 24], animate: false });
    const section = document.getElementById('reach-result');
    section.hidden = false;
    section.innerHTML = `<h2>Safe reach</h2>
      <p><span data-testid="reach-cells">${answer.cellCount}</span> cells within ${answer.minutes} min ${answer.mode}
      (${(answer.budgetM / 1000).toFixed(2)} km along the ${answer.network === 'roads' ? 'streets' : 'hex lattice'}).</p>
      <p>Least exposure to reach a cell: median ${quantile(0.5).toFixed(2)}, most ${sorted.at(-1)?.toFixed(2) ?? '0'} expected incidents passed.</p>
      <ol class="shades" aria-label="Exposure shades, lightest safest">${SHADES.map((c, i) => `<li style="background:${c}">${i + 1}</li>`).join('')}</ol>
      <p class="note">Shades are fifths of this area's cells by exposure, 1 the safest to reach.</p>`;
    document.body.dataset.reach = String(answer.cellCount);
  }
}
