// Where a page feature's module (surveys.collection.integrity.FEATURES: waves.js) leaves its hooks for respond.js.
// Such a module is an entry of its own, in a script tag with its integrity that only a page with the feature has,
// before respond.js's: module scripts run in the page's order, so its hooks are here when respond.js runs. Not a
// dynamic import: Chromium fetches a module again, without its pin, when a dynamic import meets a preload that
// failed its integrity; a static graph keeps the failure. Both import this module: one instance, no global.
const given = new Map();

/** A feature's module gives its hooks. */
export function provide(feature, hooks) {
  given.set(feature, hooks);
}

/** The hooks of `feature`, or null when its module did not run. */
export function provided(feature) {
  return given.get(feature) ?? null;
}
