// The Adjust tab's Shape, Frame and Shadow: the outline a photo is cut to, its own border (a line
// or a polaroid card) and its drop shadow. Each control ends as one setLook edit; the canvas then
// shows the renderer's drawing of the photo, so what is seen is what exports.
import { $ } from './ui.js';

/** Colours a frame is most often wanted in; the colour well gives any other. */
const frameColours = [
  ['#ffffff', 'White'], ['#f6f0e2', 'Cream'], ['#111111', 'Black'], ['#d4af37', 'Gold'],
  ['#1f3a5f', 'Navy'], ['#f4b6c2', 'Blush'], ['#7a9a74', 'Sage'],
];

/** A new border's width in points, by style: a polaroid's sides are wider than a line. */
const defaultWidths = { line: 10, polaroid: 16 };

/** A new shadow: soft, a little below, two-fifths black: seen on a phone, not heavy on a print. */
const defaultShadow = { color: '#00000066', blur: 10, x: 0, y: 10 };

/** The shape, frame and shadow controls of the selected photo. */
export class FramePanel {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  setUp() {
    this.buildShapes();
    this.buildColours();
    for (const button of $('frame-styles').querySelectorAll('button')) {
      this.store.listen(button, 'click', () => this.setFrameStyle(button.dataset.frame));
    }
    this.store.listen($('frame-width'), 'input', () => { $('frame-width-value').textContent = `${$('frame-width').value} pt`; });
    this.store.listen($('frame-width'), 'change', () => this.changeBorder({ width: Number($('frame-width').value) }));
    this.store.listen($('photo-shadow'), 'change', () => {
      this.editor.panels.setLook({ shadow: $('photo-shadow').checked ? { ...defaultShadow } : null });
    });
    // Distance keeps the shadow's direction (straight down for one that has none); opacity
    // keeps its colour.
    const shadowSliders = [
      ['photo-shadow-distance', (value) => `${value} pt`, (shadow, value) => {
        const length = Math.hypot(shadow.x, shadow.y);
        return length > 0 ? { ...shadow, x: (shadow.x / length) * value, y: (shadow.y / length) * value } : { ...shadow, x: 0, y: value };
      }],
      ['photo-shadow-blur', (value) => `${value} pt`, (shadow, value) => ({ ...shadow, blur: value })],
      ['photo-shadow-opacity', (value) => `${value} %`,
        (shadow, value) => ({ ...shadow, color: `${shadow.color.slice(0, 7)}${alphaHex(value / 100)}` })],
    ];
    for (const [id, shown, change] of shadowSliders) {
      this.store.listen($(id), 'input', () => { $(`${id}-value`).textContent = shown($(id).value); });
      this.store.listen($(id), 'change', () => {
        const shadow = this.store.selectedItem()?.look?.shadow;
        if (shadow) this.editor.panels.setLook({ shadow: change(shadow, Number($(id).value)) });
      });
    }
  }

  /** One button per shape the server names, each with a small picture of its outline. */
  buildShapes() {
    const shapes = this.store.app.shapes?.shapes ?? [];
    $('shape-tray').replaceChildren(...shapes.map((shape) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.shape = shape.id;
      button.title = shape.name;
      button.setAttribute('aria-label', shape.name);
      button.setAttribute('aria-pressed', 'false');
      // Drawn in a frame 1.4 times as wide as tall (the server's outline is for that frame), so
      // a circle and an ellipse, or a rounded square and a rectangle, look as different as they are.
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      svg.setAttribute('viewBox', '-0.1 -0.3 1.6 1.6');
      svg.setAttribute('aria-hidden', 'true');
      const polygon = document.createElementNS('http://www.w3.org/2000/svg', 'polygon');
      const points = [];
      for (let i = 0; i + 1 < shape.outline.length; i += 2) points.push(`${shape.outline[i] * 1.4},${shape.outline[i + 1]}`);
      polygon.setAttribute('points', points.join(' '));
      svg.append(polygon);
      button.append(svg);
      this.store.listen(button, 'click', () => this.editor.panels.setLook({ shape: shape.id }));
      return button;
    }));
  }

  buildColours() {
    const buttons = frameColours.map(([colour, name]) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'swatch';
      button.dataset.colour = colour;
      button.title = `${name} frame`;
      button.setAttribute('aria-label', `${name} frame`);
      button.style.background = colour;
      this.store.listen(button, 'click', () => this.changeBorder({ color: colour }));
      return button;
    });
    const well = document.createElement('input');
    well.type = 'color';
    well.id = 'frame-colour';
    well.title = 'Another frame colour';
    well.setAttribute('aria-label', 'Another frame colour');
    this.store.listen(well, 'change', () => this.changeBorder({ color: well.value }));
    $('frame-colours').replaceChildren(...buttons, well);
  }

  /**
   * None, a line or a polaroid; a style picked keeps the colour the photo's border had. A
   * polaroid is a card: it comes with a shadow (in the same step), or a white card on a white
   * canvas would not be seen at all.
   */
  setFrameStyle(style) {
    const look = this.store.selectedItem()?.look ?? {};
    const border = look.border;
    if (!style) {
      // The shadow a polaroid brought goes with it, unless it was changed since: None took the
      // card away and left its shadow, which nobody had asked for.
      const shadow = look.shadow;
      const cardShadow = border?.style === 'polaroid' && !!shadow
        && ['blur', 'x', 'y'].every((key) => Number(shadow[key]) === defaultShadow[key])
        && String(shadow.color).toLowerCase() === defaultShadow.color;
      this.editor.panels.setLook({ border: null, ...(cardShadow ? { shadow: null } : {}) });
      return;
    }
    const width = border && border.style === style ? border.width : defaultWidths[style];
    const shadow = style === 'polaroid' && !look.shadow ? { shadow: { ...defaultShadow } } : {};
    this.editor.panels.setLook({ border: { style, width, color: border?.color ?? '#ffffff' }, ...shadow });
  }

  changeBorder(fields) {
    const border = this.store.selectedItem()?.look?.border;
    if (border) this.editor.panels.setLook({ border: { ...border, ...fields } });
  }

  /** Shows the selected photo's shape, frame and shadow (the control being moved keeps its value). */
  update(photo) {
    const look = photo.look ?? {};
    const shape = look.shape ?? 'rectangle';
    for (const button of $('shape-tray').querySelectorAll('button')) {
      button.setAttribute('aria-pressed', String(button.dataset.shape === shape));
    }
    const border = look.border ?? null;
    for (const button of $('frame-styles').querySelectorAll('button')) {
      button.setAttribute('aria-pressed', String((border?.style ?? '') === button.dataset.frame));
    }
    $('frame-options').hidden = !border;
    if (border) {
      if (document.activeElement !== $('frame-width')) $('frame-width').value = String(Math.round(border.width));
      $('frame-width-value').textContent = `${$('frame-width').value} pt`;
      const colour = border.color.slice(0, 7).toLowerCase();
      for (const button of $('frame-colours').querySelectorAll('.swatch')) {
        button.setAttribute('aria-pressed', String(button.dataset.colour === colour));
      }
      $('frame-colour').value = colour;
    }
    const shadow = look.shadow ?? null;
    $('photo-shadow').checked = !!shadow;
    $('photo-shadow-options').hidden = !shadow;
    if (shadow) {
      const values = {
        'photo-shadow-distance': [Math.round(Math.hypot(shadow.x, shadow.y)), 'pt'],
        'photo-shadow-blur': [Math.round(shadow.blur), 'pt'],
        'photo-shadow-opacity': [Math.round(alphaOf(shadow.color) * 100), '%'],
      };
      for (const [id, [value, unit]] of Object.entries(values)) {
        if (document.activeElement !== $(id)) $(id).value = String(value);
        $(`${id}-value`).textContent = `${$(id).value} ${unit}`;
      }
    }
  }

  /** Shows the Adjust tab at its Shape or Frame section (the toolbar's Shape and Frame). */
  reveal(section) {
    this.editor.panels.showTab('adjust');
    $(section === 'shape' ? 'photo-shape-heading' : 'frame-heading').scrollIntoView({ block: 'start', behavior: 'smooth' });
  }
}

/** Two hex digits for an opacity from 0 to 1. */
function alphaHex(opacity) {
  return Math.round(Math.min(1, Math.max(0, opacity)) * 255).toString(16).padStart(2, '0');
}

/** The opacity of `#rrggbb` (1) or `#rrggbbaa`. */
function alphaOf(colour) {
  return colour.length === 9 ? parseInt(colour.slice(7), 16) / 255 : 1;
}
