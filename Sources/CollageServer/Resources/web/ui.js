// Small DOM helpers shared by the library and the editor.

/** An SVG picture of a template's slots. */
export function templatePreview(template) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('aria-hidden', 'true');
  for (const slot of template.unitSlots) {
    const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
    rect.setAttribute('x', slot.x * 100 + 2);
    rect.setAttribute('y', slot.y * 100 + 2);
    rect.setAttribute('width', Math.max(1, slot.width * 100 - 4));
    rect.setAttribute('height', Math.max(1, slot.height * 100 - 4));
    rect.setAttribute('rx', 3);
    rect.setAttribute('fill', '#9fb7d9');
    svg.append(rect);
  }
  return svg;
}

/** Replaces a select's options with [value, label] pairs. */
export function fillSelect(select, options, selected) {
  select.replaceChildren(...options.map(([value, label]) => {
    const option = new Option(label, value);
    option.selected = value === selected;
    return option;
  }));
}


/** The element with `id`. */
export const $ = (id) => document.getElementById(id);

/** A fresh item id: unique enough within one collage, short enough to read. */
export const newID = () => `i${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Copies the methods of each class in `sources` onto `target`'s prototype: one class, its
 *  methods kept in modules by job. */
export function mixin(target, ...sources) {
  for (const source of sources) {
    for (const name of Object.getOwnPropertyNames(source.prototype)) {
      if (name === 'constructor') continue;
      if (Object.prototype.hasOwnProperty.call(target.prototype, name)) throw new Error(`${target.name}.${name} twice`);
      Object.defineProperty(target.prototype, name, Object.getOwnPropertyDescriptor(source.prototype, name));
    }
  }
}
