// Backgrounds as the page reads and writes them: the text forms CollageCore's Background uses
// (colours, gradients, patterns, papers, photos), and their CSS stand-ins.

/** The papers' own colours, as CollageCore's PaperTexture has them, for swatches and stand-ins. */
export const paperColours = { kraft: '#c4a074', linen: '#ece4d4', watercolour: '#faf8f2' };

/** A background's text read into its parts (the forms CollageCore's Background writes). */
export function parseBackground(text) {
  let match = text.match(/^(linear|radial)-gradient\((.*)\)$/);
  if (match) {
    const parts = match[2].split(',').map((part) => part.trim());
    const angle = match[1] === 'linear' && parts[0].endsWith('deg') ? parseFloat(parts.shift()) : 180;
    return { kind: 'gradient', shape: match[1], angle, stops: parts.map((part) => part.split(/\s+/)[0]) };
  }
  match = text.match(/^(dots|stripes|grid|checks)\((#[0-9a-f]+),\s*(#[0-9a-f]+),\s*([\d.]+)\)$/i);
  if (match) return { kind: 'pattern', pattern: match[1], ink: match[2], paper: match[3], scale: Number(match[4]) };
  match = text.match(/^paper\((\w+)\)$/);
  if (match) return { kind: 'paper', texture: match[1] };
  match = text.match(/^photo\(([^,)]+),\s*([\d.]+)\)$/);
  if (match) return { kind: 'photo', ref: match[1].trim(), blur: Number(match[2]) };
  return { kind: 'colour', colour: text };
}

/** A gradient's text, its colours evenly spaced. */
export function gradientText({ shape, angle, stops }) {
  const placed = stops.map((colour, index) => `${colour} ${Math.round((index / (stops.length - 1)) * 100000) / 1000}%`);
  return shape === 'radial' ? `radial-gradient(${placed.join(', ')})` : `linear-gradient(${angle}deg, ${placed.join(', ')})`;
}

/** A small CSS picture of a background for its swatch (the canvas shows the renderer's). */
export function swatchCSS(text) {
  const fill = parseBackground(text);
  if (fill.kind === 'gradient') return text;
  if (fill.kind === 'paper') return paperColours[fill.texture] ?? '#ffffff';
  if (fill.kind !== 'pattern') return text;
  const { ink, paper } = fill;
  return {
    dots: `radial-gradient(circle, ${ink} 0 26%, ${paper} 30%) 0 0 / 9px 9px`,
    stripes: `repeating-linear-gradient(45deg, ${ink} 0 4px, ${paper} 4px 8px)`,
    grid: `linear-gradient(${ink} 1px, transparent 1px) 0 0 / 8px 8px, linear-gradient(90deg, ${ink} 1px, ${paper} 1px) 0 0 / 8px 8px`,
    checks: `conic-gradient(${ink} 25%, ${paper} 0 50%, ${ink} 0 75%, ${paper} 0) 0 0 / 12px 12px`,
  }[fill.pattern];
}

/**
 * The colour the canvas shows until the renderer's pixels of a background come: a gradient's
 * first colour (under the gradient itself, in CSS), a pattern's paper, a paper's colour.
 */
export function standInColour(text) {
  const fill = parseBackground(text);
  if (fill.kind === 'pattern') return fill.paper;
  if (fill.kind === 'paper') return paperColours[fill.texture] ?? '#ffffff';
  if (fill.kind === 'gradient') return fill.stops[0] ?? '#ffffff';
  if (fill.kind === 'photo') return '#c8c8c8';
  return text;
}

/** Whether any of a background's colours lets what is behind it through (an alpha under ff). */
export function isSeeThrough(text) {
  if (/\btransparent\b/i.test(text)) return true;
  return (text.match(/#[0-9a-f]{8}\b/gi) ?? []).some((colour) => colour.slice(7).toLowerCase() !== 'ff');
}
