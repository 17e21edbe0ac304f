"""`numfuzz report`: a campaign corpus as one static HTML page, with plots of where each finding's error lives.

One job per module: `data` (the plain data a page is made of), `campaigns` (campaign folders
read into it), `collect` (finding groups read into it), `sweep` (a minimised case run over
scaled inputs), `plots` (matplotlib figures as SVG text), `render` (the Jinja2 page) and
`build` (all of it, in order, with progress).
"""
