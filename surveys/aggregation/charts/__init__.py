"""Server-rendered SVG charts of the dashboard's figures."""
