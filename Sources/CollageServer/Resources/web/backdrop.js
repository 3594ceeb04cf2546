// The Background tab's Photo: one of the collage's own photos covering the canvas, blurred, the
// backdrop people put behind photos that keep their shape. The renderer draws it; the canvas
// shows its pixels, as for every background that is not a colour.
import { parseBackground } from './background.js';
import { $ } from './ui.js';

/** How soft a photo background starts, in points: enough to read as a backdrop, not a photo. */
const defaultBlur = 24;

/** The Photo section of the Background tab. */
export class PhotoBackdrop {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  setUp() {
    this.store.listen($('background-blur'), 'input', () => { $('background-blur-value').textContent = `${$('background-blur').value} pt`; });
    this.store.listen($('background-blur'), 'change', () => {
      const fill = parseBackground(this.store.collage.style.background);
      if (fill.kind === 'photo') this.editor.panels.setStyle({ background: `photo(${fill.ref}, ${Number($('background-blur').value)})` });
    });
  }

  /** The collage's photos, each a button that makes it the background; the blur of the one shown. */
  update() {
    const fill = parseBackground(this.store.collage.style.background);
    const refs = [...new Set(this.store.collage.items.filter((item) => item.content.type === 'photo').map((item) => item.content.ref))];
    const shown = $('background-photos');
    const key = JSON.stringify([refs, fill.kind === 'photo' ? fill.ref : null]);
    if (shown.dataset.key !== key) {
      shown.dataset.key = key;
      shown.replaceChildren(...refs.map((ref, index) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'background-photo';
        button.dataset.ref = ref;
        button.setAttribute('aria-label', `Photo ${index + 1} as the background`);
        button.setAttribute('aria-pressed', String(fill.kind === 'photo' && fill.ref === ref));
        const image = document.createElement('img');
        image.alt = '';
        image.src = this.store.doc.media[ref]?.thumbnail ?? '';
        button.append(image);
        button.addEventListener('click', () => {
          const blur = fill.kind === 'photo' ? fill.blur : defaultBlur;
          // Like a gradient, a photo shows around and between the photos: hairline gaps open up.
          const style = this.store.collage.style;
          const roomy = style.spacing >= 24 || style.padding >= 24 ? {} : { spacing: 30, padding: 30 };
          this.editor.panels.setStyle({ background: `photo(${ref}, ${blur})`, ...roomy });
        });
        return button;
      }));
    }
    $('background-photo-hint').hidden = refs.length > 0;
    $('background-blur-row').hidden = fill.kind !== 'photo';
    if (fill.kind === 'photo') {
      if (document.activeElement !== $('background-blur')) $('background-blur').value = String(Math.round(fill.blur));
      $('background-blur-value').textContent = `${$('background-blur').value} pt`;
    }
  }
}
