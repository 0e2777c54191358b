// A place search box: the WAI-ARIA combobox pattern (an input whose listbox popup
// offers places as one types). Down and Up move through the places (the input keeps
// the focus; aria-activedescendant names the place), Enter takes the one shown or
// else the first place for all that was typed, Escape closes the list and a second Escape empties the box; a
// pointer takes a place too. A live region says how many places there are.

const KINDS = {
  street: 'street', intersection: 'corner', neighbourhood: 'neighbourhood', precinct: 'police division', pointOfInterest: 'place',
};

/** Metres as text: "350 m", "2.4 km". */
const distance = (m) => (m < 1000 ? `${Math.round(m / 10) * 10} m` : `${(m / 1000).toFixed(1)} km`);

/**
 * Wires `input` and its listbox `list` (an empty `ul`). `search(q)` answers like
 * GET /places; `onChoose(place)` gets the place taken; `count` is a live region.
 */
export function placeSearch({ input, list, count, search, onChoose, onError }) {
  let places = [];
  // The text `places` answers: typing faster than the search answers leaves the list
  // showing an earlier prefix's places for a moment.
  let placesFor = '';
  let active = -1;
  let asked = 0;
  let timer = null;
  // Whether the box shows a name the app gave (a route end named by reverse lookup):
  // focusing selects it, so that typing replaces it.
  let named = false;
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', list.id);
  input.autocomplete = 'off';
  input.spellcheck = false;
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', `${input.labels?.[0]?.textContent ?? 'Places'}: places`);
  list.hidden = true;

  const optionId = (i) => `${list.id}-${i}`;
  function show(open) {
    list.hidden = !open;
    input.setAttribute('aria-expanded', String(open));
    if (!open) input.removeAttribute('aria-activedescendant');
  }
  function render() {
    list.replaceChildren(...places.map((place, i) => {
      const option = document.createElement('li');
      option.id = optionId(i);
      option.setAttribute('role', 'option');
      option.setAttribute('aria-selected', String(i === active));
      option.dataset.index = String(i);
      const name = document.createElement('span');
      name.textContent = place.name;
      const about = document.createElement('small');
      const hints = [KINDS[place.kind] ?? place.kind];
      if (place.match === 'suggestion') hints.push('did you mean?');
      if (place.distanceM !== undefined) hints.push(distance(place.distanceM));
      about.textContent = hints.join(' · ');
      option.append(name, ' ', about);
      return option;
    }));
    if (active >= 0) input.setAttribute('aria-activedescendant', optionId(active));
    else input.removeAttribute('aria-activedescendant');
    show(places.length > 0 && document.activeElement === input);
  }
  async function update() {
    const q = input.value.trim();
    const mine = ++asked;
    if (!q) { places = []; placesFor = ''; active = -1; render(); count.textContent = ''; return; }
    try {
      const answer = await search(q);
      if (mine !== asked) return; // a later keystroke asked again
      places = answer.places;
      placesFor = q;
      active = -1;
      render();
      count.textContent = places.length === 0 ? `No place matches ${q}.` : `${places.length} place${places.length > 1 ? 's' : ''}: Down to choose.`;
    } catch (err) {
      if (mine !== asked) return;
      places = [];
      placesFor = q;
      render();
      onError(err);
    }
  }
  function choose(i) {
    const place = places[i];
    if (!place) return;
    // A search still to be asked or answered is for text no longer in the box: without
    // this, its answer would open the list again over the place just taken.
    clearTimeout(timer);
    asked += 1;
    input.value = place.name;
    places = [];
    placesFor = input.value.trim();
    active = -1;
    render();
    count.textContent = '';
    onChoose(place);
  }
  function move(by) {
    if (places.length === 0) return;
    active = active < 0 ? (by > 0 ? 0 : places.length - 1) : (active + by + places.length) % places.length;
    render();
    show(true);
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }

  input.addEventListener('input', () => {
    named = false;
    clearTimeout(timer);
    timer = setTimeout(update, 60);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') { event.preventDefault(); move(1); }
    else if (event.key === 'ArrowUp') { event.preventDefault(); move(-1); }
    else if (event.key === 'Enter') {
      event.preventDefault(); // never submits the controls' form
      if (active >= 0) choose(active);
      else if (placesFor === input.value.trim()) choose(0);
      else {
        // The list is an earlier prefix's: take the first place for what was typed.
        clearTimeout(timer);
        update().then(() => { if (placesFor === input.value.trim()) choose(0); });
      }
    } else if (event.key === 'Escape') {
      event.stopPropagation();
      if (!list.hidden) { active = -1; show(false); } else { input.value = ''; places = []; placesFor = ''; count.textContent = ''; }
    }
  });
  input.addEventListener('blur', () => show(false));
  input.addEventListener('focus', () => {
    if (named) input.select();
    render();
  });
  // mousedown, not click: it comes before the input's blur closes the list.
  list.addEventListener('mousedown', (event) => {
    const option = event.target.closest('[role=option]');
    if (!option) return;
    event.preventDefault();
    choose(Number(option.dataset.index));
  });
  return {
    /** Shows `text` in the box (a place named another way), without searching. */
    name(text) {
      if (document.activeElement === input) return;
      input.value = text;
      named = true;
      places = [];
      placesFor = text.trim();
      render();
    },
    clear() { input.value = ''; named = false; places = []; placesFor = ''; render(); count.textContent = ''; },
  };
}
