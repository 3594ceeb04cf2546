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

