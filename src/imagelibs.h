/* imagelibs.h: gdk-pixbuf (JPEG, GIF) and librsvg (SVG), opened with
 * GModule the first time an image needs them. Most books have no such
 * image; linking the two libraries loaded 13 more shared objects at every
 * start (librsvg's Rust runtime, gio, libjpeg, ...): about 11 ms of the
 * seed's 0.1 s on a machine where a page fault is dear. */
#ifndef OCTAVO_IMAGELIBS_H
#define OCTAVO_IMAGELIBS_H

#include <cairo.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <librsvg/rsvg.h>
#include <stdbool.h>

/* Whether all of the image at path decodes with gdk-pixbuf, fed to a
 * GdkPixbufLoader to its end: false with *err set when it does not, or
 * when gdk-pixbuf cannot be opened; *cut_short true when the data ends
 * before the image does (a truncated JPEG or GIF, which
 * gdk_pixbuf_new_from_file accepts silently, its missing rows grey, and
 * which a PDF reader that decodes the JPEG as it is embedded refuses).
 * Thread-safe. */
bool imagelibs_pixbuf_check(const char *path, bool *cut_short, GError **err);

/* The same decoded as a cairo image surface: premultiplied native-endian
 * ARGB32 (RGB24 when opaque), as cairo wants it; the caller destroys it.
 * NULL with *err set when it cannot be decoded or gdk-pixbuf cannot be opened. */
cairo_surface_t *imagelibs_pixbuf_surface(const char *path, GError **err);

/* The same at w x h pixels (scaled by gdk-pixbuf; a JPEG decoded at the
 * nearest 1/2, 1/4 or 1/8 scale by libjpeg first, never at full size when
 * it is shown small); w or h <= 0: the file's own size. With jpeg
 * non-NULL, also those pixels encoded as a JPEG (quality 90) into *jpeg
 * (g_free) and *jpeg_len, or *jpeg NULL when that fails or the image has
 * alpha. Thread-safe. */
cairo_surface_t *imagelibs_pixbuf_surface_at(const char *path, int w, int h, guchar **jpeg,
                                             gsize *jpeg_len, GError **err);

/* Whether all of the PNG at path decodes (libpng, row by row: one row in
 * memory, whatever its size); false with *err set (libpng's words) when
 * it does not. Thread-safe. */
bool imagelibs_png_check(const char *path, GError **err);

/* The PNG at path, fw x fh pixels (its header's), at w x h (fewer), never decoded
 * whole: boxes of k x k pixels averaged row by row as libpng reads them
 * (k the whole times it is larger), then cairo's box filter the rest of
 * the way. An interlaced PNG is decoded whole first. Premultiplied
 * ARGB32, or RGB24 when opaque; the caller destroys it. NULL with *err
 * set when it does not decode. Thread-safe. */
cairo_surface_t *imagelibs_png_surface_at(const char *path, int fw, int fh, int w, int h,
                                          GError **err);

/* The SVG document at path read by librsvg (g_object_unref), or NULL with
 * *err set (also when librsvg cannot be opened). Thread-safe. */
RsvgHandle *imagelibs_svg_load(const char *path, GError **err);

/* rsvg_handle_render_document(): draws svg as vectors into viewport on
 * cr. false with *err set when it fails. svg comes from imagelibs_svg_load. */
bool imagelibs_svg_render(RsvgHandle *svg, cairo_t *cr, const RsvgRectangle *viewport,
                          GError **err);

#endif
