// Two tabs on one collage: whether edits made on an older version can go on top of a newer one.

const styleFields = ['background', 'spacing', 'padding', 'cornerRadius'];

/**
 * What each edit depends on, as keys: "item:ID:FIELD" (one field of one item, "exists" for
 * whether it is there at all), "slot:N" (who is in a slot), "style:FIELD", "order", "layout"
 * (template and canvas) and "title".
 */
function touched(edit, base) {
  const item = (id, ...fields) => [`item:${id}:exists`, ...fields.map((field) => `item:${id}:${field}`)];
  switch (edit.op) {
    // A frame given in canvas points means what it means only on the same canvas.
    case 'addItem': return edit.frame ? ['layout'] : [];
    case 'removeItem': return item(edit.id);
    // A copy is of the item as this window saw it: any change to it in the other one clashes.
    case 'duplicateItem': return [...item(edit.id, 'frame', 'rotation', 'content', 'crop', 'stickerStyle', 'look'), `item:${edit.newID}:exists`];
    case 'moveItem': case 'resizeItem': return item(edit.id, 'frame');
    case 'rotateItem': return item(edit.id, 'rotation');
    case 'setCrop': return item(edit.id, 'content', 'crop');
    case 'setStickerStyle': return item(edit.id, 'content', 'stickerStyle');
    case 'replaceSticker': return item(edit.id, 'content');
    case 'replacePhoto': return item(edit.id, 'content', 'crop');
    case 'setLook': return item(edit.id, 'content', 'look');
    case 'setText': return item(edit.id, 'content');
    case 'reorder': return [...item(edit.id), 'order'];
    case 'swapContents': return [...item(edit.first, 'content', 'look', 'frame', 'rotation'), ...item(edit.second, 'content', 'look', 'frame', 'rotation')];
    case 'placeInSlot': return [...item(edit.id, 'slot'), `slot:${edit.slot}`, 'layout'];
    case 'applyTemplate': case 'setAspect': return ['layout'];
    case 'rename': return ['title'];
    case 'setStyle': return styleFields.filter((field) => edit.style[field] !== base.style[field]).map((field) => `style:${field}`);
    default: return ['everything'];
  }
}

/** Whether the other tab changed what `key` names between `base` and `current`. */
function changed(key, base, current) {
  const [kind, name, field] = key.split(':');
  switch (kind) {
    case 'item': {
      const [before, after] = [base, current].map((collage) => collage.items.find((candidate) => candidate.id === name));
      if (field === 'exists') return !before !== !after;
      return JSON.stringify(before?.[field] ?? null) !== JSON.stringify(after?.[field] ?? null);
    }
    case 'slot': {
      const occupant = (collage) => collage.items.find((candidate) => candidate.slot === Number(name))?.id ?? null;
      return occupant(base) !== occupant(current);
    }
    case 'style': return base.style[name] !== current.style[name];
    case 'order': {
      // Only the order of the items both versions have: an item added elsewhere is no clash.
      const has = (collage, id) => collage.items.some((candidate) => candidate.id === id);
      const order = (collage) => collage.items.map((candidate) => candidate.id)
        .filter((id) => has(base, id) && has(current, id)).join();
      return order(base) !== order(current);
    }
    case 'layout':
      return base.template !== current.template || base.canvas.width !== current.canvas.width
        || base.canvas.height !== current.canvas.height;
    case 'title': return base.title !== current.title;
    default: return true;
  }
}

/** What a key names, for the message: "photo 2", "the spacing", … */
function describe(key, base) {
  const [kind, name] = key.split(':');
  if (kind === 'item') {
    const index = base.items.findIndex((item) => item.id === name);
    return `${base.items[index]?.content.type ?? 'item'} ${index + 1}`;
  }
  if (kind === 'slot') return `frame ${Number(name) + 1}`;
  if (kind === 'style') return `the ${name === 'cornerRadius' ? 'corners' : name}`;
  return { order: 'the stacking order', layout: 'the layout', title: 'the title' }[kind] ?? 'the collage';
}

/**
 * Edits made on `base` can go on top of `current` when nothing they depend on changed between
 * the two. Style edits are rebased: only the fields this tab changed are sent, the rest are the
 * other tab's. Returns `{ok, edits}` or `{ok: false, reason}` naming what both changed.
 */
export function mergeable(edits, base, current) {
  for (const edit of edits) {
    const clash = touched(edit, base).find((key) => changed(key, base, current));
    if (clash) return { ok: false, reason: `Both windows changed ${describe(clash, base)}.` };
  }
  const rebased = edits.map((edit) => {
    if (edit.op !== 'setStyle') return edit;
    const mine = Object.fromEntries(styleFields.filter((field) => edit.style[field] !== base.style[field]).map((field) => [field, edit.style[field]]));
    return { op: 'setStyle', style: { ...current.style, ...mine } };
  });
  return { ok: true, edits: rebased };
}
