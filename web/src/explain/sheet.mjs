// The explanation panel is a sheet over the page's bottom (a phone gives it up to 60% of the window):
// while it is open, the page's scroller keeps scroll-padding-bottom = the sheet's height + 8 px, so
// that whatever the browser scrolls into view (a cell the arrow keys focus) stops above the sheet,
// and a number explained is scrolled up above it with about two rows above it showing too.
// Closing the sheet gives the scroller its own padding back.
//   panel: { root, container, ... } (explain/index.mjs); these keep panel.sheet: { observer, scroller, before }

export const SHEET_GAP = 8;  // px between the sheet's top and what it must not cover
const ROWS_ABOVE = 2;

const sheetOf = (panel) => panel.root.getElementById('explain');

// the scroller of the page the lab is in (a component's shadow root has no scroller of its own)
const scrollerOf = (panel) => (panel.container.ownerDocument ?? document).scrollingElement;

function pad(panel) {
  const box = sheetOf(panel);
  const { scroller } = panel.sheet;
  if (!box || box.hidden || !scroller) return;
  scroller.style.scrollPaddingBottom = `${Math.ceil(box.getBoundingClientRect().height) + SHEET_GAP}px`;
}

/** The sheet shown (true) or hidden: its height kept as the scroller's bottom padding while it shows. */
export function keepRoom(panel, open) {
  if (open && !panel.sheet) {
    const scroller = scrollerOf(panel);
    panel.sheet = { scroller, before: scroller?.style.scrollPaddingBottom ?? '', observer: null };
    // a new explanation (more lines, links) changes the sheet's height: the padding follows
    if (typeof ResizeObserver === 'function' && sheetOf(panel)) {
      panel.sheet.observer = new ResizeObserver(() => pad(panel));
      panel.sheet.observer.observe(sheetOf(panel));
    }
  }
  if (open) return pad(panel);
  if (!panel.sheet) return;
  panel.sheet.observer?.disconnect();
  if (panel.sheet.scroller) panel.sheet.scroller.style.scrollPaddingBottom = panel.sheet.before;
  panel.sheet = null;
}

// the row ROWS_ABOVE rows above the cell's (in its table section), or the cell's own when there are fewer
function rowAbove(td) {
  let row = td.parentElement;
  for (let k = 0; k < ROWS_ABOVE && row?.previousElementSibling; k++) row = row.previousElementSibling;
  return row ?? td;
}

/**
 * Scrolls the page so that the cell explained is above the open sheet, by the least scroll that also
 * shows the two rows above it; when the strip above the sheet is too short for them, the cell wins.
 */
export function uncover(panel, td) {
  const box = sheetOf(panel);
  const win = td.ownerDocument.defaultView;
  if (!box || box.hidden || !win) return;
  const limit = box.getBoundingClientRect().top - SHEET_GAP;
  const cell = td.getBoundingClientRect();
  const least = cell.bottom - limit;                                  // down to here, the cell is above the sheet
  const most = Math.min(rowAbove(td).getBoundingClientRect().top, cell.top);  // past here, the rows above leave the top
  const by = least > most ? least : Math.min(Math.max(0, least), most);
  if (Math.abs(by) >= 1) win.scrollBy({ top: by, behavior: 'instant' });
}
