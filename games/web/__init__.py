"""The games' pages: views, forms and URLs (thin: they parse, authorise, call a service and render)."""
