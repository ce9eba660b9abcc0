"""Saying no on text nobody here wrote: public requests with and without tools, the
request-intent head fit on them and the stock no-tool policy `bundle from-servers` ships."""
