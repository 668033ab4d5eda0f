/* pngpass.h: a PNG in the PDF at the cost of a copy (issue 30), as pdfTeX
 * copies one: its IDAT chunks are the image's FlateDecode data (with the
 * PNG predictors), never decoded and deflated again. cairo 1.16's PDF
 * surface cannot take a PNG's compressed data, so the painter draws a
 * placeholder that cairo writes as it is (pngpass_placeholder: an image
 * whose data is a marker) and the archive pass writes the PNG's data and
 * dictionary in its place (pngpass_image). One table per PDF, filled by
 * the thread that draws and read by the archive pass after it. Which PNGs
 * qualify is decided here only (see pngpass.c). */
#ifndef OCTAVO_PNGPASS_H
#define OCTAVO_PNGPASS_H

#include <cairo.h>
#include <glib.h>
#include <stdbool.h>

typedef struct PngPass PngPass;

/* What a placeholder's image data begins with (cairo writes it as the
 * stream's data): PNGPASS_MARKER and the entry's number. */
#define PNGPASS_MARKER "octavo-png:"

/* An empty table. Free with pngpass_free (accepts NULL). */
PngPass *pngpass_new(void);
void pngpass_free(PngPass *t);

/* Entries in t (PNGs drawn as placeholders). */
guint pngpass_count(const PngPass *t);

/* The PNG file at path (width_px x height_px, as the model has it) drawn
 * as its own data: a new reference to a 1 x 1 RGB24 surface carrying the
 * marker of t's entry for path (the same entry for every draw of the file)
 * as CAIRO_MIME_TYPE_CCITT_FAX data, which cairo's PDF surface writes
 * verbatim as the image's stream. Drawn to fill the figure's box (scale
 * it to 1 x 1), the page's `cm` is the box. NULL when the file does not
 * qualify (its header read now): interlaced, an alpha channel or a tRNS
 * chunk, 16 bits, not the model's size, or not readable as a PNG; the
 * caller then decodes it. The caller sets CAIRO_MIME_TYPE_UNIQUE_ID. */
cairo_surface_t *pngpass_placeholder(PngPass *t, const char *path, int width_px, int height_px);

/* The entry whose marker is the stream data [data, data + len) exactly,
 * or -1. */
int pngpass_entry(const PngPass *t, const char *data, gsize len);

/* Entry n's file (for messages). */
const char *pngpass_path(const PngPass *t, int n);

/* Entry n's PDF image, read again from its file now: *dict its image
 * dictionary in PDF syntax (Type, Subtype, Width, Height, ColorSpace:
 * DeviceGray, DeviceRGB or Indexed on DeviceRGB with the PLTE,
 * BitsPerComponent, FlateDecode with DecodeParms Predictor 15, Colors,
 * BitsPerComponent, Columns; /Interpolate true when interpolate; no
 * /Length; g_free), *len the length of its data, the IDAT chunks' data
 * concatenated (the zlib stream), which pngpass_data reads when it is
 * written. Every chunk's length and every critical chunk's CRC (zlib's
 * crc32) checked, to IEND.
 * False with *err set when the file is cut, corrupt or no longer the one
 * drawn (its header changed). */
bool pngpass_image(const PngPass *t, int n, bool interpolate, char **dict, gsize *len,
                   GError **err);

/* Entry n's data (the len bytes pngpass_image measured), read from its
 * file now with the same checks; NULL with *err set when the file is no
 * longer what was measured. */
GBytes *pngpass_data(const PngPass *t, int n, gsize len, GError **err);

#endif
