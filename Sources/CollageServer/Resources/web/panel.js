// The side panel (a bottom sheet on a phone): Photos, Layouts, Background, Stickers, Text and Adjust tabs.
import { api, setStatus } from './api.js';
import { isLocked, premium } from './licence.js';
import { openSheet } from './sheet.js';
import { openPack } from './pack.js';
import { gradientText, paperColours, parseBackground, swatchCSS } from './background.js';
import { $, layoutButton, newID, toast } from './ui.js';

/** Curated backgrounds: a few calm palettes and see-through, beside the custom colour. */
const palettes = [
  ['Neutrals', [['White', '#ffffff'], ['Paper', '#f6f1e7'], ['Linen', '#ece4d4'], ['Stone', '#d6d3d1'], ['Charcoal', '#2b2b2e'], ['Black', '#000000']]],
  ['Pastels', [['Blush', '#fde2e4'], ['Mint', '#dcefe6'], ['Sky', '#dde7fb'], ['Butter', '#fff1c1'], ['Lilac', '#eadcf8'], ['Peach', '#ffe0cc']]],
  ['Bold', [['Tomato', '#e63946'], ['Marigold', '#f4a261'], ['Teal', '#2a9d8f'], ['Forest', '#264d3b'], ['Navy', '#1d3557'], ['Plum', '#5b2a6e']]],
];
const transparentBackground = '#ffffff00';
/** Backgrounds beyond a colour, written as documents write them, so a chosen one shows as pressed. */
const fills = [
  ['Gradients', [
    ['Peach gradient', 'linear-gradient(135deg, #ff9a9e 0%, #fad0c4 100%)'], ['Sky gradient', 'linear-gradient(180deg, #a1c4fd 0%, #c2e9fb 100%)'],
    ['Lime gradient', 'linear-gradient(135deg, #d4fc79 0%, #96e6a1 100%)'],
    ['Sunset gradient', 'linear-gradient(160deg, #f6d365 0%, #fda085 50%, #f5576c 100%)'],
    ['Dusk gradient', 'linear-gradient(180deg, #1d3557 0%, #5b2a6e 100%)'], ['Glow gradient', 'radial-gradient(#ffffff 0%, #b8c6db 100%)'],
  ]],
  ['Patterns', [
    ['Polka dots', 'dots(#e63946, #fde2e4, 24)'], ['Stripes', 'stripes(#dde7fb, #ffffff, 28)'],
    ['Grid paper', 'grid(#b9cbe4, #ffffff, 24)'], ['Checks', 'checks(#264d3b, #f6f1e7, 32)'],
  ]],
  ['Paper', [['Kraft paper', 'paper(kraft)'], ['Linen paper', 'paper(linen)'], ['Watercolour paper', 'paper(watercolour)']]],
];
const tabs = ['photos', 'layouts', 'background', 'stickers', 'text', 'adjust'];
/** The media query of a phone on its side (the styles' block of that name has the same). */
const LYING = '(orientation: landscape) and (max-height: 500px) and (min-width: 701px) and (pointer: coarse)';

/** The side panel: layouts, style, photos and stickers, each choice an intent to the store. */
/**
 * Runs `work` on a slider's newest value (`drag.pending`), one at a time: values given while one
 * runs wait, and only the newest of them runs next, while `wanted()` holds (the slider not let
 * go). A value `work` fails on is said when the slider is let go, by the save.
 */
async function sendNewest(drag, wanted, work) {
  if (drag.busy) return;
  drag.busy = true;
  try {
    while (drag.pending !== null && wanted()) {
      const value = drag.pending;
      drag.pending = null;
      try { await work(value); } catch { /* said when let go */ }
    }
  } finally {
    drag.busy = false;
  }
}

export class Panels {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  setUpPanel() {
    for (const name of tabs) {
      const tab = $(`tab-${name}`);
      this.store.listen(tab, 'click', () => this.showTab(name, { toggle: true }));
      this.store.listen(tab, 'keydown', (event) => {
        const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
        if (!step) return;
        event.preventDefault();
        const next = tabs[(tabs.indexOf(name) + step + tabs.length) % tabs.length];
        this.showTab(next);
        $(`tab-${next}`).focus();
      });
    }
    // A phone's open sheet has a grabber along its top that closes it, as a phone app's sheets
    // do (it closed only by pressing its tab again).
    const closeSheet = () => {
      const current = tabs.find((tab) => $(`tab-${tab}`).getAttribute('aria-selected') === 'true') ?? 'photos';
      this.showTab(current, { open: false });
      $(`tab-${current}`).focus();
    };
    this.store.listen($('panel-close'), 'click', closeSheet);
    // A grabber invites a swipe down too: one of 24 px or more closes the sheet.
    this.store.listen($('panel-close'), 'pointerdown', (event) => {
      const start = event.clientY;
      const move = (moved) => {
        if (moved.clientY - start < 24) return;
        stop();
        closeSheet();
      };
      const stop = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', stop);
        window.removeEventListener('pointercancel', stop);
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', stop);
      window.addEventListener('pointercancel', stop);
    });
    this.store.listen($('tray-target-cancel'), 'click', () => this.clearTrayTarget());
    this.buildSwatches();
    this.buildShapes();
    const sliders = [['spacing-input', 'spacing'], ['padding-input', 'padding'], ['radius-input', 'cornerRadius']];
    // Sliders show their effect while they move (the layout as the server resolves it, or a CSS
    // stand-in where that is exact or close), and save one undoable step when let go.
    for (const [id, field] of sliders) {
      const input = $(id);
      this.store.listen(input, 'input', () => {
        this.showSliderValues();
        this.previewStyle({ [field]: Number(input.value) });
      });
      this.store.listen(input, 'change', () => this.endStylePreview(this.setStyle({ [field]: Number(input.value) })));
      // Let go where it started: no change is sent, and the preview ends all the same.
      this.store.listen(input, 'pointerup', () => setTimeout(() => {
        if (this.styleDrag && Number(input.value) === this.store.collage.style[field]) this.endStylePreview(null);
      }, 0));
    }
    this.store.listen($('background-input'), 'input', () => {
      $('background-value').textContent = $('background-input').value;
      Object.assign($('canvas').style, { backgroundColor: $('background-input').value, backgroundImage: '' });
    });
    this.store.listen($('background-input'), 'change', () => this.setStyle({ background: $('background-input').value }));
    for (const button of document.querySelectorAll('#background-gradient [data-shape]')) {
      this.store.listen(button, 'click', () => this.changeGradient((gradient) => ({ ...gradient, shape: button.dataset.shape })));
    }
    // The angle turns the CSS gradient at once (CSS means what the renderer means by it); the
    // renderer's pixels follow when it is let go.
    this.store.listen($('gradient-angle'), 'input', () => {
      $('gradient-angle-value').textContent = `${$('gradient-angle').value}°`;
      const gradient = parseBackground(this.store.collage.style.background);
      if (gradient.kind === 'gradient') {
        Object.assign($('canvas').style, { backgroundImage: gradientText({ ...gradient, angle: Number($('gradient-angle').value) }) });
      }
    });
    this.store.listen($('gradient-angle'), 'change', () => this.changeGradient((gradient) => ({ ...gradient, angle: Number($('gradient-angle').value) })));
    for (const id of ['pattern-ink', 'pattern-paper']) {
      this.store.listen($(id), 'input', () => { $(`${id}-value`).textContent = $(id).value; });
    }
    // Each control changes its own part; the others are sent as the collage has them (a colour's
    // alpha and a fractional size kept).
    const changePattern = (part, value) => {
      const pattern = parseBackground(this.store.collage.style.background);
      if (pattern.kind !== 'pattern') return;
      const next = { ...pattern, [part]: value };
      this.setStyle({ background: `${next.pattern}(${next.ink}, ${next.paper}, ${next.scale})` });
    };
    this.store.listen($('pattern-ink'), 'change', () => changePattern('ink', $('pattern-ink').value));
    this.store.listen($('pattern-paper'), 'change', () => changePattern('paper', $('pattern-paper').value));
    this.store.listen($('pattern-scale'), 'change', () => changePattern('scale', Number($('pattern-scale').value)));
    this.store.listen($('pattern-scale'), 'input', () => { $('pattern-scale-value').textContent = `${$('pattern-scale').value} pt`; });
    this.store.listen($('outline-input'), 'input', () => {
      $('outline-value').textContent = `${$('outline-input').value} pt`;
      this.previewStickerOutline(Number($('outline-input').value));
    });
    this.store.listen($('outline-input'), 'change', () => {
      this.outlineDrag = null;
      this.setStickerStyle({ outline: Number($('outline-input').value) });
    });
    // A slider let go where it started sends no change: its stand-in is taken back all the same.
    for (const id of ['outline-input', 'background-input']) {
      this.store.listen($(id), 'blur', () => {
        if (id === 'outline-input') this.outlineDrag = null;
        if (!this.styleDrag) this.editor.canvas.render();
      });
    }
    this.store.listen($('shadow-input'), 'change', () => this.setStickerStyle({ shadow: $('shadow-input').checked }));
    // A sheet of this collage's stickers, printed as they look here.
    this.store.listen($('print-stickers'), 'click', () => openSheet(this.store.id));
    this.store.listen($('pack-stickers'), 'click', () => openPack(this.store));
    for (const button of document.querySelectorAll('#sticker-style .effects button')) {
      this.store.listen(button, 'click', () => this.setStickerStyle({ effect: button.dataset.effect || null }));
    }
    for (const button of $('flips').querySelectorAll('button')) {
      this.store.listen(button, 'click', () => this.flipSelected(button.dataset.field));
    }
    this.buildAdjustSliders();
    this.store.listen($('adjust-reset'), 'click', () => this.setLook({ adjustments: null }));
    this.store.listen($('adjust-auto'), 'click', () => this.autoAdjust());
    this.store.listen($('filter-strength'), 'input', () => { $('filter-strength-value').textContent = `${$('filter-strength').value} %`; });
    this.store.listen($('filter-strength'), 'change', () => {
      const filter = this.store.selectedItem()?.look?.filter;
      if (filter) this.setLook({ filter: { ...filter, strength: Number($('filter-strength').value) / 100 } });
    });
    // Opacity is exact in CSS: the item fades at once while the slider moves, and one undoable
    // step is saved when it is let go.
    this.store.listen($('opacity-input'), 'input', () => {
      $('opacity-value').textContent = `${$('opacity-input').value} %`;
      const element = $('canvas').querySelector(`.item[data-id="${CSS.escape(this.store.selected ?? '')}"]`);
      if (element) element.style.opacity = String(Number($('opacity-input').value) / 100);
    });
    this.store.listen($('opacity-input'), 'change', () => this.setLook({ opacity: Number($('opacity-input').value) / 100 }));
    this.store.listen($('opacity-input'), 'blur', () => this.editor.canvas.render());
    this.store.listen($('smart-layout'), 'click', () => this.arrange());
    // The next seed of the collage as the saves before left it, so quick presses each shuffle.
    this.store.listen($('smart-shuffle'), 'click', () => this.arrange((doc) => ({ seed: (doc.collage.arrangement?.seed ?? 0) + 1 })));
    this.store.listen($('smart-hero'), 'click', () => {
      const item = this.store.selectedItem();
      if (item?.content.type !== 'photo') return;
      // Pressed again, the photo stops being the hero; a hero leads best from anywhere, so the
      // photos need not keep their order.
      const fields = this.store.collage.arrangement?.hero === item.id ? { hero: null } : { hero: item.id, keepsOrder: false };
      this.arrange(fields).then(() => this.store.select(item.id));
    });
    this.loadTray();
  }

  /**
   * Shows one tab. On a phone the tabs are a bottom bar and a tab opens a sheet: pressing the
   * open tab again closes it, and the canvas takes the room back.
   */
  showTab(name, { toggle = false, open = true } = {}) {
    const panel = $('panel');
    const wasOpen = panel.classList.contains('sheet-open');
    const current = tabs.find((tab) => $(`tab-${tab}`).getAttribute('aria-selected') === 'true');
    for (const tab of tabs) {
      const selected = tab === name;
      $(`tab-${tab}`).setAttribute('aria-selected', String(selected));
      $(`tab-${tab}`).tabIndex = selected ? 0 : -1;
      $(`panel-${tab}`).hidden = !selected;
    }
    const sheet = toggle && wasOpen && current === name ? false : open;
    panel.classList.toggle('sheet-open', sheet);
    // On a phone the tab's contents are a sheet that is open or closed; a screen reader hears which.
    for (const tab of tabs) {
      if (this.isPhone()) $(`tab-${tab}`).setAttribute('aria-expanded', String(tab === name && sheet));
      else $(`tab-${tab}`).removeAttribute('aria-expanded');
    }
    if (name === 'layouts') this.drawLayouts();
    if (name === 'stickers') this.drawStickerTray();
    if (name === 'adjust' && this.store.selectedItem()?.content.type === 'photo') this.drawFilterTray(this.store.selectedItem());
  }

  isPhone() { return window.matchMedia('(max-width: 700px)').matches; }

  /**
   * A phone on its side (wide but at most 500 px high, under a finger: a desktop window that
   * short keeps its own layout): the panel stays beside the stage and the selected item's tools
   * stand in two columns along the stage's right edge (see the styles).
   */
  isLying() { return window.matchMedia(LYING).matches; }

  /** The library's photos, newest first, as a tray to tap or drag into the collage. */
  async loadTray() {
    let photos = [];
    try {
      photos = await api.photos();
    } catch (error) {
      toast(`Your photos could not be listed: ${error.message}`, 'error');
    }
    if (this.store.closed) return;
    photos.sort((a, b) => Date.parse(b.imported) - Date.parse(a.imported));
    $('tray-empty').hidden = photos.length > 0;
    $('photo-tray').replaceChildren(...photos.map((photo) => {
      const entry = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.draggable = true;
      button.dataset.photo = photo.id;
      button.setAttribute('aria-label', `Add ${photo.name}`);
      button.title = photo.name;
      button.dataset.name = photo.name;
      if (photo.subject) button.dataset.subject = photo.subject;
      const image = document.createElement('img');
      image.src = photo.thumbnail;
      image.alt = '';
      image.loading = 'lazy';
      button.append(image);
      button.addEventListener('click', () => this.usePhoto(photo.id));
      button.addEventListener('dragstart', (event) => {
        event.dataTransfer.setData('application/x-collage-photo', photo.id);
        event.dataTransfer.effectAllowed = 'copy';
      });
      entry.append(button);
      return entry;
    }));
    this.markPlacedPhotos();
    this.showSubjectsFound(photos);
  }

  /**
   * Marks the tray's photos the collage already shows (a check in the corner, and said to a
   * screen reader), as a phone's photo picker marks those chosen: among thirty look-alike
   * thumbnails, which were still to place could not be told.
   */
  markPlacedPhotos() {
    if (this.store.closed || !this.store.doc) return;
    const placed = new Set(this.store.collage.items
      .filter((item) => item.content.type === 'photo').map((item) => item.content.ref));
    for (const button of $('photo-tray').querySelectorAll('button[data-photo]')) {
      const isPlaced = placed.has(button.dataset.photo);
      button.toggleAttribute('data-placed', isPlaced);
      button.setAttribute('aria-label', `Add ${button.dataset.name}${isPlaced ? ' (already in the collage)' : ''}`);
    }
  }

  /**
   * The server finds the photos' subjects in the background: the tray marks the photos whose
   * lift will answer at once, says how many are still to do, and looks again until none are.
   */
  showSubjectsFound(photos) {
    clearTimeout(this.subjectsTimer);
    const pending = photos.filter((photo) => photo.subject === 'pending').length;
    $('tray-subjects').hidden = pending === 0;
    $('tray-subjects').textContent = `Getting ${pending} photo${pending === 1 ? '' : 's'} ready to lift…`;
    for (const photo of photos) {
      const button = $('photo-tray').querySelector(`button[data-photo="${CSS.escape(photo.id)}"]`);
      if (!button || !photo.subject) continue;
      button.dataset.subject = photo.subject;
      button.title = photo.subject === 'ready' ? `${photo.name} · ready to lift` : photo.name;
    }
    if (!pending || this.store.closed) return;
    this.subjectsTimer = setTimeout(async () => {
      try {
        if (!this.store.closed) this.showSubjectsFound(await api.photos());
      } catch {
        // The next upload looks again.
      }
    }, 3000);
  }

  /**
   * What tapping a tray photo does: fills the slot whose "+" was pressed, replaces the photo
   * Replace was pressed for, or adds it (into the first empty slot, else on top).
   */
  usePhoto(photoID) {
    // A photo goes into the saved collage: a layout being tried is put away first.
    this.editor.premium.endPreview();
    const target = this.store.trayTarget;
    this.clearTrayTarget();
    // On a phone the sheet closes once the photo is in, so the canvas shows where it went.
    if (this.isPhone()) this.showTab('photos', { open: false });
    if (target?.slot !== undefined) return this.fillSlot(target.slot, photoID);
    if (target?.replace) return this.replacePhoto(target.replace, photoID);
    return this.store.commit([{ op: 'addItem', id: newID(), content: { type: 'photo', ref: photoID } }]);
  }

  /** Puts a photo in one slot of the layout. */
  fillSlot(slot, photoID) {
    const id = newID();
    return this.store.commit([
      { op: 'addItem', id, content: { type: 'photo', ref: photoID } },
      { op: 'placeInSlot', id, slot },
    ]);
  }

  /** Swaps the picture in a photo's frame for another: its frame, place, turn and look stay. */
  replacePhoto(itemID, photoID) {
    if (!this.store.collage.items.some((item) => item.id === itemID)) return null;
    return this.store.commit([{ op: 'replacePhoto', id: itemID, photo: photoID }]).then(() => this.store.select(itemID));
  }

  /** The tray is opened for one purpose (a slot's "+", Replace): the banner says which. */
  setTrayTarget(target, text) {
    this.store.setTrayTarget(target);
    $('tray-target-text').textContent = text;
    $('tray-target').hidden = false;
    this.showTab('photos');
    $('photo-tray').querySelector('button')?.focus();
  }

  clearTrayTarget() {
    this.store.setTrayTarget(null);
    $('tray-target').hidden = true;
  }

  /** The canvas shapes as buttons, each with a small picture of its proportions. */
  buildShapes() {
    $('shape-options').replaceChildren(...this.store.app.presets.map((preset) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'shape-option';
      button.dataset.ratio = String(preset.canvas.width / preset.canvas.height);
      button.title = `${preset.name} (${preset.id})`;
      const picture = document.createElement('span');
      picture.className = 'shape-picture';
      const long = Math.max(preset.canvas.width, preset.canvas.height);
      picture.style.width = `${(22 * preset.canvas.width) / long}px`;
      picture.style.height = `${(22 * preset.canvas.height) / long}px`;
      const name = document.createElement('span');
      name.textContent = preset.name.replace(' print', '');
      button.append(picture, name);
      button.addEventListener('click', () => this.store.commit([{ op: 'setAspect', aspect: preset.aspect }]));
      return button;
    }));
  }

  buildSwatches() {
    const swatch = (name, value) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = value === transparentBackground ? 'swatch clear' : 'swatch';
      if (value !== transparentBackground) button.style.background = swatchCSS(value);
      button.dataset.colour = value;
      button.title = name;
      button.setAttribute('aria-label', `${name} background`);
      button.addEventListener('click', () => {
        // A gradient, pattern or paper shows around and between the photos: with hairline gaps
        // it would hardly be seen, so they open up (in the same undoable step).
        const style = this.store.collage.style;
        const fill = parseBackground(value).kind;
        const roomy = fill === 'colour' || style.spacing >= 24 || style.padding >= 24 ? {} : { spacing: 30, padding: 30 };
        this.setStyle({ background: value, ...roomy }).then(() => {
          // Said, so the photos moving is no surprise (a helper thought the sliders jumped).
          if (roomy.spacing) toast(`Gaps widened to ${roomy.spacing} pt so the ${fill} shows; Undo puts them back`);
          const controls = { gradient: 'background-gradient', pattern: 'background-pattern' }[fill];
          if (controls && !$(controls).hidden) $(controls).scrollIntoView({ block: 'nearest' });
        });
      });
      return button;
    };
    $('swatches').replaceChildren(...[...palettes, ...fills].map(([title, colours]) => {
      const group = document.createElement('div');
      group.className = 'palette';
      const heading = document.createElement('h3');
      heading.textContent = title;
      const row = document.createElement('div');
      row.append(...colours.map(([name, value]) => swatch(name, value)));
      if (title === 'Neutrals') row.append(swatch('See-through', transparentBackground));
      group.append(heading, row);
      return group;
    }));
  }

  /**
   * Lays the photos out for their own shapes (the server's AutoLayout); `fields` (or a function
   * of the latest document giving them) change the seed (Shuffle), the hero or the order, and
   * what is not given stays as the collage has it. Spacing, shape and photo changes lay an
   * arranged collage out again on the server, in the same step.
   */
  arrange(fields = {}) {
    return this.store.save(() => api.arrange(this.store.id, {
      version: this.store.doc.version, ...(typeof fields === 'function' ? fields(this.store.doc) : fields),
    }));
  }

  /** Changes some of the style's fields, keeping the rest as the collage has them. */
  setStyle(fields) { return this.store.commit((doc) => [{ op: 'setStyle', style: { ...doc.collage.style, ...fields } }]); }

  setStickerStyle(fields) {
    const id = this.store.selected;
    return this.store.commit((doc) => {
      const item = doc.collage.items.find((candidate) => candidate.id === id);
      if (!item || item.content.type !== 'sticker') return null;
      return [{ op: 'setStickerStyle', id, style: { outline: 0, shadow: false, ...item.stickerStyle, ...fields } }];
    });
  }

  /** Changes the gradient background by `change` (of its parts); nothing when it is not a gradient. */
  changeGradient(change) {
    const gradient = parseBackground(this.store.collage.style.background);
    if (gradient.kind !== 'gradient') return null;
    return this.setStyle({ background: gradientText(change(gradient)) });
  }

  /** The gradient's colours as inputs, each removable down to two, and an Add while under four. */
  drawGradientStops(gradient) {
    const rows = gradient.stops.map((colour, index) => {
      const row = document.createElement('div');
      row.className = 'gradient-stop';
      const input = document.createElement('input');
      input.type = 'color';
      input.value = colour.slice(0, 7);
      input.setAttribute('aria-label', `Colour ${index + 1}`);
      input.addEventListener('change', () => this.changeGradient((latest) => ({
        ...latest, stops: latest.stops.map((stop, at) => (at === index ? input.value : stop)),
      })));
      row.append(input);
      if (gradient.stops.length > 2) {
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.textContent = '×';
        remove.setAttribute('aria-label', `Remove colour ${index + 1}`);
        remove.addEventListener('click', () => this.changeGradient((latest) => ({
          ...latest, stops: latest.stops.filter((_, at) => at !== index),
        })));
        row.append(remove);
      }
      return row;
    });
    if (gradient.stops.length < 4) {
      const add = document.createElement('button');
      add.type = 'button';
      add.id = 'gradient-add';
      add.textContent = '+ Colour';
      // A colour the gradient does not have yet, so the change shows at once.
      add.addEventListener('click', () => this.changeGradient((latest) => ({
        ...latest,
        stops: [...latest.stops, ['#ffffff', '#1d3557', '#f4a261', '#2a9d8f'].find((colour) => !latest.stops.includes(colour)) ?? '#000000'],
      })));
      rows.push(add);
    }
    $('gradient-stops').replaceChildren(...rows);
  }

  /** Changes some of the selected item's look (flip, opacity, filter, adjustments, shape, border, shadow), keeping the rest. */
  setLook(fields) {
    const id = this.store.selected;
    return this.store.commit((doc) => {
      const item = doc.collage.items.find((candidate) => candidate.id === id);
      if (!item) return null;
      const look = { ...item.look, ...fields };
      // What is plain is left out, as documents write it.
      if (!look.flipHorizontal) delete look.flipHorizontal;
      if (!look.flipVertical) delete look.flipVertical;
      if (look.opacity === undefined || look.opacity >= 1) delete look.opacity;
      if (!look.filter) delete look.filter;
      if (!look.shape || look.shape === 'rectangle') delete look.shape;
      if (!look.border) delete look.border;
      if (!look.shadow) delete look.shadow;
      const adjustments = Object.fromEntries(Object.entries(look.adjustments ?? {}).filter(([, value]) => value));
      if (Object.keys(adjustments).length) look.adjustments = adjustments; else delete look.adjustments;
      return [{ op: 'setLook', id, look }];
    });
  }

  /**
   * Auto: the exposure and white balance the selected photo's own pixels ask for (the server
   * reads them), set as its sliders in one undoable step; a photo that needs nothing says so.
   */
  async autoAdjust() {
    const item = this.store.selectedItem();
    if (item?.content.type !== 'photo') return;
    $('adjust-auto').disabled = true;
    try {
      const { adjustments } = await api.autoAdjustments(this.store.id, item.id);
      if (this.store.closed || this.store.selected !== item.id) return;
      const before = item.look?.adjustments ?? {};
      const names = new Set([...Object.keys(before), ...Object.keys(adjustments)]);
      if ([...names].every((name) => (before[name] ?? 0) === (adjustments[name] ?? 0))) {
        toast('This photo\'s exposure and colour already look right');
        return;
      }
      this.setLook({ adjustments });
      const said = ['exposure', 'warmth', 'tint'].filter((name) => adjustments[name])
        .map((name) => `${name} ${adjustments[name] > 0 ? '+' : ''}${Math.round(adjustments[name])}`);
      toast(`Auto: ${said.join(', ') || 'as shot'}`);
    } catch (error) {
      toast(`Auto could not read this photo: ${error.message}`, 'error');
    } finally {
      $('adjust-auto').disabled = false;
    }
  }

  /** The Adjust tab's sliders, one per adjustment the server names, each saved when let go. */
  buildAdjustSliders() {
    const labels = {
      exposure: 'Exposure', contrast: 'Contrast', highlights: 'Highlights', shadows: 'Shadows', saturation: 'Saturation',
      vibrance: 'Vibrance', warmth: 'Warmth', tint: 'Tint', sharpness: 'Sharpness', vignette: 'Vignette', grain: 'Grain',
    };
    $('adjust-sliders').replaceChildren(...(this.store.app.looks?.adjustments ?? []).map(({ name, min, max }) => {
      const row = document.createElement('div');
      row.className = 'slider';
      const label = document.createElement('label');
      label.htmlFor = `adjust-${name}`;
      label.textContent = labels[name] ?? name;
      const input = document.createElement('input');
      Object.assign(input, { type: 'range', id: `adjust-${name}`, min: String(min), max: String(max), value: '0' });
      input.dataset.adjustment = name;
      const output = document.createElement('output');
      output.htmlFor = input.id;
      output.id = `adjust-${name}-value`;
      output.textContent = '0';
      // While it moves, the browser's own filters stand in on the photo; the renderer's pixels
      // come when it is let go.
      input.addEventListener('input', () => { output.textContent = input.value; this.previewAdjustments(); });
      // Let go where it started (no change to save), the stand-in is taken back all the same.
      input.addEventListener('blur', () => this.editor.canvas.render());
      input.addEventListener('change', () => {
        const item = this.store.selectedItem();
        if (item) this.setLook({ adjustments: { ...(item.look?.adjustments ?? {}), [name]: Number(input.value) } });
      });
      row.append(label, input, output);
      return row;
    }));
  }

  /** A CSS stand-in for the sliders' values on the selected photo (exposure, contrast, saturation, warmth). */
  previewAdjustments() {
    const value = (name) => Number($(`adjust-${name}`)?.value ?? 0);
    const image = $('canvas').querySelector(`.item[data-id="${CSS.escape(this.store.selected ?? '')}"] img`);
    if (!image) return;
    const warmth = value('warmth');
    image.style.filter = [
      `brightness(${2 ** (value('exposure') / 50)})`, `contrast(${1 + value('contrast') / 200})`,
      `saturate(${Math.max(0, 1 + value('saturation') / 100 + value('vibrance') / 200)})`,
      warmth > 0 ? `sepia(${warmth / 400})` : `hue-rotate(${warmth / 10}deg)`,
    ].join(' ');
  }

  /** The filter tray: the selected photo itself drawn with each filter (by the renderer), and None. */
  drawFilterTray(item) {
    const looks = this.store.app.looks?.filters ?? [];
    const current = item.look?.filter?.id ?? 'none';
    const tray = $('filter-tray');
    // Drawn again for another photo, crop or frame; not for each adjustment (which would queue
    // thirteen renders a slider step).
    const source = JSON.stringify([item.content.ref, item.crop ?? null, item.frame.width, item.frame.height,
      this.editor.canvas.layoutOf(item)?.source ?? null]);
    if (tray.dataset.source !== source || tray.dataset.item !== item.id) {
      for (const url of this.filterPreviews?.values() ?? []) URL.revokeObjectURL(url);
      this.filterPreviews = new Map();
      tray.dataset.source = source;
      tray.dataset.item = item.id;
      const scale = Math.min(1, 144 / Math.max(item.frame.width, item.frame.height));
      tray.replaceChildren(...[{ id: 'none', name: 'None' }, ...looks].map((filter) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'filter-option';
        button.dataset.filter = filter.id;
        const picture = document.createElement('img');
        picture.alt = '';
        const name = document.createElement('span');
        name.textContent = filter.name;
        button.append(picture, name);
        // A filter starts at its full strength; the slider tones it down.
        button.addEventListener('click', () => this.setLook({ filter: filter.id === 'none' ? null : { id: filter.id, strength: 1 } }));
        api.drawnItem(this.store.id, item.id, { scale, filter: filter.id, v: source }).then(async (response) => {
          if (!response.ok || this.store.closed || tray.dataset.source !== source) return;
          const url = URL.createObjectURL(await response.blob());
          this.filterPreviews.set(filter.id, url);
          picture.src = url;
        }).catch(() => {});
        return button;
      }));
    }
    for (const button of tray.querySelectorAll('.filter-option')) {
      button.setAttribute('aria-pressed', String(button.dataset.filter === current));
    }
  }

  /** Mirrors the selected photo or sticker (`field` is flipHorizontal or flipVertical); a text is never mirrored. */
  flipSelected(field) {
    const item = this.store.selectedItem();
    if (!item || item.content.type === 'text') return null;
    return this.setLook({ [field]: !item.look?.[field] });
  }

  /**
   * Shows the collage with `fields` of its style changed, as the server lays it out (a
   * template's slots, a smart layout refitted), without saving. One request at a time: a slider
   * that moves on meanwhile sends its newest value when the last answer comes.
   */
  previewStyle(fields) {
    // Rounded corners are exact in CSS: at once, on every photo.
    if (fields.cornerRadius !== undefined) {
      for (const clip of $('canvas').querySelectorAll('.item.photo .clip')) {
        clip.style.borderRadius = `${fields.cornerRadius * this.editor.canvas.viewScale}px`;
      }
      return;
    }
    this.styleDrag ??= { pending: null, busy: false };
    const drag = this.styleDrag;
    drag.pending = { ...(drag.pending ?? {}), ...fields };
    sendNewest(drag, () => this.styleDrag === drag, async (wanted) => {
      const base = this.store.doc;
      const preview = await api.preview(this.store.id, [{ op: 'setStyle', style: { ...base.collage.style, ...wanted } }]);
      // Let go (or gone) meanwhile: what was saved is drawn instead.
      if (this.styleDrag !== drag || this.store.closed || this.store.doc !== base) return;
      this.store.showOnce({ ...preview, history: base.history, version: base.version });
    });
  }

  /** The slider was let go: the saved step is drawn when it comes (or now, when nothing changed). */
  async endStylePreview(saving) {
    this.styleDrag = null;
    await saving;
    if (!this.store.closed) this.editor.canvas.render();
  }

  /**
   * While the outline slider moves, the selected sticker is drawn by the renderer at the width it
   * passes through, its effect and shadow with it: one drawing at a time, the newest width asked
   * for when the last one comes. A CSS outline stood in before and showed another sticker: no
   * effect or shadow, and a ring twice as wide that took in the faint haze round fur.
   */
  previewStickerOutline(width) {
    const item = this.store.selectedItem();
    if (item?.content.type !== 'sticker') return;
    if (this.outlineDrag?.item !== item.id) this.outlineDrag = { item: item.id, pending: null, busy: false };
    const drag = this.outlineDrag;
    drag.pending = width;
    const wanted = () => this.outlineDrag === drag;
    sendNewest(drag, wanted, (value) => this.editor.canvas.showStickerWithOutline(item, value, wanted));
  }

  showSliderValues() {
    $('spacing-value').textContent = `${$('spacing-input').value} pt`;
    $('padding-value').textContent = `${$('padding-input').value} pt`;
    $('radius-value').textContent = `${$('radius-input').value} pt`;
  }

  /** The panel's controls follow the collage (after every save, an undo, another tab's edit). */
  updatePanel() {
    const style = this.store.collage.style;
    const background = style.background.toLowerCase();
    for (const button of $('swatches').querySelectorAll('.swatch')) {
      const value = button.dataset.colour;
      const same = value === transparentBackground ? background.length === 9 && background.endsWith('00') : background === value;
      button.setAttribute('aria-pressed', String(same));
    }
    const fill = parseBackground(style.background);
    const colour = fill.kind === 'colour' ? background : (background.match(/#[0-9a-f]{6}/)?.[0] ?? paperColours[fill.texture] ?? '#ffffff');
    if (document.activeElement !== $('background-input')) $('background-input').value = colour.slice(0, 7);
    $('background-value').textContent = fill.kind !== 'colour' ? ''
      : background.length === 9 && background.endsWith('00') ? 'See-through' : background.slice(0, 7);
    $('background-input-label').textContent = fill.kind === 'colour' ? 'Custom colour' : 'Solid colour instead';
    $('background-gradient').hidden = fill.kind !== 'gradient';
    if (fill.kind === 'gradient') {
      for (const button of document.querySelectorAll('#background-gradient [data-shape]')) {
        button.setAttribute('aria-pressed', String(button.dataset.shape === fill.shape));
      }
      $('gradient-angle-row').hidden = fill.shape !== 'linear';
      if (document.activeElement !== $('gradient-angle')) $('gradient-angle').value = String(Math.round(fill.angle));
      $('gradient-angle-value').textContent = `${$('gradient-angle').value}°`;
      // Redrawn after every change, except while a colour picker in it is open.
      if (document.activeElement?.type !== 'color' || !$('gradient-stops').contains(document.activeElement)) {
        this.drawGradientStops(fill);
      }
    }
    this.editor.backdrop.update();
    $('background-pattern').hidden = fill.kind !== 'pattern';
    if (fill.kind === 'pattern') {
      for (const key of ['ink', 'paper']) {
        if (document.activeElement !== $(`pattern-${key}`)) $(`pattern-${key}`).value = fill[key].slice(0, 7);
        $(`pattern-${key}-value`).textContent = $(`pattern-${key}`).value;
      }
      if (document.activeElement !== $('pattern-scale')) $('pattern-scale').value = String(fill.scale);
      $('pattern-scale-value').textContent = `${$('pattern-scale').value} pt`;
    }
    // A slider being dragged keeps its thumb where the finger is: a preview drawn meanwhile
    // carries the value it was asked for, which may be behind.
    if (!this.styleDrag) {
      $('spacing-input').value = style.spacing;
      $('padding-input').value = style.padding;
      $('radius-input').value = style.cornerRadius;
      this.showSliderValues();
    }
    const ratio = this.store.collage.canvas.width / this.store.collage.canvas.height;
    let marked = false;
    for (const button of $('shape-options').querySelectorAll('.shape-option')) {
      // Screen and print presets can share a ratio (4:5 and 8 × 10 in): the first one is marked.
      const same = !marked && Math.abs(Number(button.dataset.ratio) - ratio) < 0.005;
      marked ||= same;
      button.setAttribute('aria-pressed', String(same));
    }
    const arrangement = this.store.collage.arrangement;
    $('smart-layout').setAttribute('aria-pressed', String(!!arrangement));
    $('smart-shuffle').disabled = !arrangement;
    const selected = this.store.selectedItem();
    $('smart-hero').disabled = !arrangement || selected?.content.type !== 'photo';
    $('smart-hero').setAttribute('aria-pressed', String(!!arrangement && arrangement.hero === selected?.id));
    if (!$('panel-layouts').hidden) this.drawLayouts();
    if (!$('panel-stickers').hidden) this.drawStickerTray();
    this.editor.text.updateTextPanel();
    const item = this.store.selectedItem();
    $('item-look').hidden = !item;
    $('text-look-hint').hidden = item?.content.type !== 'text';
    $('adjust-hint').hidden = !!item;
    if (item) {
      $('flips').hidden = item.content.type === 'text';
      $('flip-heading').hidden = item.content.type === 'text';
      for (const button of $('flips').querySelectorAll('button')) {
        button.setAttribute('aria-pressed', String(!!item.look?.[button.dataset.field]));
      }
      if (document.activeElement !== $('opacity-input')) {
        $('opacity-input').value = String(Math.round((item.look?.opacity ?? 1) * 100));
        $('opacity-value').textContent = `${$('opacity-input').value} %`;
      }
    }
    const photo = item?.content.type === 'photo' ? item : null;
    $('photo-look').hidden = !photo;
    if (photo) {
      this.editor.frame.update(photo);
      if (!$('panel-adjust').hidden) this.drawFilterTray(photo);
      const filter = photo.look?.filter;
      $('filter-strength-row').hidden = !filter;
      if (filter && document.activeElement !== $('filter-strength')) $('filter-strength').value = String(Math.round(filter.strength * 100));
      $('filter-strength-value').textContent = `${$('filter-strength').value} %`;
      for (const input of $('adjust-sliders').querySelectorAll('input')) {
        if (document.activeElement === input) continue;
        input.value = String(photo.look?.adjustments?.[input.dataset.adjustment] ?? 0);
        $(`${input.id}-value`).textContent = input.value;
      }
      $('adjust-reset').disabled = !photo.look?.adjustments;
    }
    const sticker = item?.content.type === 'sticker' ? item : null;
    $('sticker-style').hidden = !sticker;
    if (sticker) {
      $('outline-input').value = sticker.stickerStyle?.outline ?? 0;
      $('outline-value').textContent = `${$('outline-input').value} pt`;
      $('shadow-input').checked = !!sticker.stickerStyle?.shadow;
      for (const button of document.querySelectorAll('#sticker-style .effects button')) {
        button.setAttribute('aria-pressed', String((sticker.stickerStyle?.effect ?? '') === button.dataset.effect));
      }
    }
  }

  /** The collage's photos in layout order (slotted ones by slot, then the free ones). */
  photosInOrder() {
    const photos = this.store.collage.items.filter((item) => item.content.type === 'photo');
    const slotted = photos.filter((item) => item.slot !== undefined).sort((a, b) => a.slot - b.slot);
    return [...slotted, ...photos.filter((item) => item.slot === undefined)]
      .map((item) => this.store.doc.media[item.content.ref]?.thumbnail).filter(Boolean);
  }

  /** Every layout, drawn in the collage's shape with the person's own photos. */
  drawLayouts() {
    const canvas = this.store.collage.canvas;
    const photos = this.photosInOrder();
    const key = [this.store.collage.template, canvas.width, canvas.height, premium.unlocked, ...photos].join('|');
    if (key === this.drawnLayouts) return;
    this.drawnLayouts = key;
    // Redrawn after a choice: the keyboard stays on the layout it chose.
    const focused = document.activeElement?.closest?.('#layout-grid .layout-option')?.dataset.template;
    $('layout-grid').replaceChildren(...this.store.app.templates.map((template) => {
      // The layout the collage follows is never locked for it, even when it is premium.
      const locked = isLocked(template) && template.id !== this.editor.premium.savedCollage().template;
      const button = layoutButton(template, canvas, photos, { pressed: template.id === this.store.collage.template, locked });
      button.addEventListener('click', () => this.chooseLayout(template));
      return button;
    }));
    if (focused) $('layout-grid').querySelector(`[data-template="${CSS.escape(focused)}"]`)?.focus();
  }

  async chooseLayout(template) {
    if (isLocked(template) && template.id !== this.editor.premium.savedCollage().template) return this.editor.premium.offerPremium(template);
    await this.store.commit([{ op: 'applyTemplate', template: template.id }]);
    const loose = this.store.collage.items.filter((item) => item.content.type === 'photo' && item.slot === undefined);
    if (this.store.collage.template === template.id && loose.length) {
      const text = `${template.name} has ${template.slots} slots: ${loose.length} photo${loose.length === 1 ? ' is' : 's are'} `
        + 'stacked in front, at the centre';
      setStatus(text);
      toast(text);
    }
  }

  /** The collage's stickers: tapping one selects it, and its outline and shadow are set below. */
  drawStickerTray() {
    const stickers = this.store.collage.items.filter((item) => item.content.type === 'sticker');
    $('sticker-hint').hidden = stickers.length > 0 && !!this.store.selectedItem();
    $('print-stickers').hidden = stickers.length === 0;
    $('pack-stickers').hidden = stickers.length === 0;
    const focused = document.activeElement?.closest?.('#sticker-tray button')?.dataset.id;
    $('sticker-tray').replaceChildren(...stickers.map((item, index) => {
      const entry = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.id = item.id;
      button.setAttribute('aria-label', `Select sticker ${index + 1}`);
      button.setAttribute('aria-pressed', String(item.id === this.store.selected));
      const image = document.createElement('img');
      image.src = this.store.doc.media[item.content.ref]?.thumbnail ?? '';
      image.alt = '';
      button.append(image);
      button.addEventListener('click', () => this.store.select(item.id));
      entry.append(button);
      return entry;
    }));
    if (focused) $('sticker-tray').querySelector(`[data-id="${CSS.escape(focused)}"]`)?.focus();
  }
}
