// The map's state in the URL fragment, so that a link reopens the same map: city,
// view, scoring options, time, opacity, click mode, route endpoints and method, the
// chosen route, and safe reach. The query string keeps the page's own settings
// (`api`, `key`, `clock`, `tiles`, `renderer`), which are not part of a shared view.

/** A point as `lat,lng` with 5 decimals (about a metre). */
const point = (p) => `${p.lat.toFixed(5)},${p.lng.toFixed(5)}`;

function parsePoint(text) {
  const [lat, lng] = (text ?? '').split(',').map(Number);
  return Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { lat, lng } : undefined;
}

function parseView(text) {
  const [lat, lng, zoom] = (text ?? '').split(',').map(Number);
  const centre = parsePoint(`${lat},${lng}`);
  return centre && Number.isFinite(zoom) && zoom >= 0 && zoom <= 20 ? { ...centre, zoom } : undefined;
}

const integerIn = (text, min, max) => {
  const n = Number(text);
  return text !== null && text !== '' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
};

/**
 * The state a fragment describes; members it lacks or has wrong are left out (the
 * page keeps its defaults for them).
 */
export function readState(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const state = {
    city: p.get('city') ?? undefined,
    view: parseView(p.get('view')),
    intent: p.get('intent') ?? undefined,
    classes: p.has('classes') ? p.get('classes').split(',').filter(Boolean) : undefined,
    week: /^\d{4}-\d\d-\d\d$/.test(p.get('week') ?? '') ? p.get('week') : undefined,
    day: integerIn(p.get('day'), 0, 6),
    hour: integerIn(p.get('hour'), 0, 23),
    opacity: integerIn(p.get('opacity'), 0, 100),
    click: p.get('click') ?? undefined,
    method: p.get('method') ?? undefined,
    from: parsePoint(p.get('from')),
    to: parsePoint(p.get('to')),
    route: integerIn(p.get('route'), 0, 9),
    reach: parsePoint(p.get('reach')),
    minutes: integerIn(p.get('minutes'), 1, 60),
    mode: p.get('mode') ?? undefined,
  };
  return Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined));
}

/** The fragment of a state (without `#`); undefined members are left out. */
export function writeState(state) {
  const p = new URLSearchParams();
  const set = (key, value) => { if (value !== undefined && value !== null && value !== '') p.set(key, String(value)); };
  set('city', state.city);
  if (state.view) set('view', `${point(state.view)},${state.view.zoom}`);
  set('intent', state.intent);
  if (state.classes) set('classes', state.classes.join(','));
  set('week', state.week);
  set('day', state.day);
  set('hour', state.hour);
  set('opacity', state.opacity);
  set('click', state.click);
  set('method', state.method);
  if (state.from) set('from', point(state.from));
  if (state.to) set('to', point(state.to));
  set('route', state.route);
  if (state.reach) set('reach', point(state.reach));
  set('minutes', state.minutes);
  set('mode', state.mode);
  return p.toString().replaceAll('%2C', ',');
}
