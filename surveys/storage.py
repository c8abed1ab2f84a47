"""Static files storage for production: whitenoise's compressed, hashed files, with the
`import ... from "./x.js"` lines of ES modules rewritten to the hashed names too.

Without the rewrite, respond.<hash>.js would import the unhashed "./randomizer.js": a file
served without the immutable cache headers, which a cache may hold at another release's version
than the page's.
"""

from whitenoise.storage import CompressedManifestStaticFilesStorage  # type: ignore[import-untyped]


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
