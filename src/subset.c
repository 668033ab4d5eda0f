/* subset.c: font subsetting with harfbuzz's hb-subset, so that an EPUB
 * carries only the glyphs its text uses (the four Charis SIL styles are
 * 3.4 MB whole). Nothing else about fonts lives here. */
#include "subset.h"

#include <hb-subset.h>
#include <hb.h>

GBytes *subset_font_file(const char *path, const GArray *codepoints, GError **err)
{
  return subset_font_face(path, 0, codepoints, err);
}

GBytes *subset_font_face(const char *path, int index, const GArray *codepoints, GError **err)
{
  GBytes *result = NULL;
  hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
  hb_face_t *face = NULL, *sub = NULL;
  hb_subset_input_t *input = NULL;
  if (!blob) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot read font %s", path);
    goto out;
  }
  face = hb_face_create(blob, (unsigned)index);
  if (hb_face_get_glyph_count(face) == 0) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s is not a usable font", path);
    goto out;
  }
  input = hb_subset_input_create_or_fail();
  if (!input) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "cannot subset %s", path);
    goto out;
  }
  hb_set_t *unicodes = hb_subset_input_unicode_set(input);
  for (guint i = 0; i < codepoints->len; i++)
    hb_set_add(unicodes, g_array_index(codepoints, gunichar, i));
  hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NO_HINTING);
  sub = hb_subset_or_fail(face, input);
  if (!sub) {
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot subset %s", path);
    goto out;
  }
  hb_blob_t *out_blob = hb_face_reference_blob(sub);
  unsigned int len = 0;
  const char *data = hb_blob_get_data(out_blob, &len);
  if (len == 0)
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot subset %s", path);
  else
    result = g_bytes_new(data, len);
  hb_blob_destroy(out_blob);
out:
  hb_face_destroy(sub);
  hb_subset_input_destroy(input);
  hb_face_destroy(face);
  hb_blob_destroy(blob);
  return result;
}
