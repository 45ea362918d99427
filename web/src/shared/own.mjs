// Tables of names looked up by a name that came from outside (a file, a link, an attribute, a key):
// only the table's own entries count. `table[name]` would also find what every object inherits
// ('toString', 'constructor', '__proto__', 'valueOf', …) and hand back a function or a prototype.

/** table[name] when `name` is one of the table's own keys, else `fallback`. */
export function own(table, name, fallback = undefined) {
  return (typeof name === 'string' || typeof name === 'number') && Object.hasOwn(table, name) ? table[name] : fallback;
}

/** Whether `name` is one of the table's own keys. */
export const hasOwnName = (table, name) => (typeof name === 'string' || typeof name === 'number') && Object.hasOwn(table, name);
