/* imageenc.h: images encoded from pixels octavo drew (the e-book's drawn
 * cover): an RGB24 cairo image surface to draw on, and its pixels as a PNG.
 * What draws them is the caller's (cover.c designs, paint.c draws); images
 * a book brings are never re-encoded (image.c reads them, the writers copy
 * their bytes). */
#ifndef OCTAVO_IMAGEENC_H
#define OCTAVO_IMAGEENC_H

#include <cairo.h>
#include <glib.h>

/* An RGB24 image surface of w by h pixels whose memory is mapped in one
 * step (cairo's first fill would otherwise fault it in a page at a time,
 * which costs more than the fill: 6 MB, 1,465 faults for the cover). The
 * memory goes with the surface: free it with cairo_surface_destroy. Never
 * NULL (a surface in an error state when cairo fails). */
cairo_surface_t *imageenc_surface(int w, int h);

/* The same, its memory mapped and never touched (zero pages, which take
 * no memory until written): for a surface cairo only needs the size of (a
 * JPEG a PDF embeds from its own data: its pixels are never drawn nor
 * read, and a cleared 1,600 x 1,200 one held 7 MB). */
cairo_surface_t *imageenc_blank_surface(int w, int h);

/* The pixels of RGB24 surface s (flushed) as a PNG: 8-bit palette when 256
 * colours hold the image (a flat design anti-aliased: a third of RGB's
 * bytes to deflate), else 8-bit RGB; unfiltered, deterministic for the same
 * pixels. Returns the bytes (caller g_bytes_unref), or NULL when libpng
 * fails. */
GBytes *imageenc_png(cairo_surface_t *s);

#endif
