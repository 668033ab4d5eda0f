/* qpdflib.h: libqpdf's C API, opened with GModule when a PDF is written
 * (src/qpdflib.c), not linked: a run that writes only an EPUB does not
 * load it and the C++ runtime it brings (15 M instructions of relocation
 * and 220 page faults at every start, ~8 ms on this VM). Include this
 * instead of <qpdf/qpdf-c.h>: the calls octavo makes keep their names and
 * go through a table of pointers filled by qpdflib_open(). A file that
 * includes it must not call a qpdf function missing from QPDFLIB_CALLS. */
#ifndef OCTAVO_QPDFLIB_H
#define OCTAVO_QPDFLIB_H

#include <glib.h>
#include <qpdf/qpdf-c.h>
#include <stdbool.h>

#include "runplan.h"

/* Every libqpdf function octavo calls. */
#define QPDFLIB_CALLS(X)                                                                           \
  X(qpdf_cleanup)                                                                                  \
  X(qpdf_get_error)                                                                                \
  X(qpdf_get_error_full_text)                                                                      \
  X(qpdf_get_num_pages)                                                                            \
  X(qpdf_get_object_by_id)                                                                         \
  X(qpdf_get_page_n)                                                                               \
  X(qpdf_get_pdf_version)                                                                          \
  X(qpdf_get_root)                                                                                 \
  X(qpdf_get_trailer)                                                                              \
  X(qpdf_has_error)                                                                                \
  X(qpdf_init)                                                                                     \
  X(qpdf_make_indirect_object)                                                                     \
  X(qpdf_oh_append_item)                                                                           \
  X(qpdf_oh_get_array_item)                                                                        \
  X(qpdf_oh_get_array_n_items)                                                                     \
  X(qpdf_oh_get_generation)                                                                        \
  X(qpdf_oh_get_int_value)                                                                         \
  X(qpdf_oh_get_int_value_as_int)                                                                  \
  X(qpdf_oh_get_key)                                                                               \
  X(qpdf_oh_get_name)                                                                              \
  X(qpdf_oh_get_numeric_value)                                                                     \
  X(qpdf_oh_get_object_id)                                                                         \
  X(qpdf_oh_get_stream_data)                                                                       \
  X(qpdf_oh_get_utf8_value)                                                                        \
  X(qpdf_oh_has_key)                                                                               \
  X(qpdf_oh_is_array)                                                                              \
  X(qpdf_oh_is_dictionary)                                                                         \
  X(qpdf_oh_is_indirect)                                                                           \
  X(qpdf_oh_is_integer)                                                                            \
  X(qpdf_oh_is_name)                                                                               \
  X(qpdf_oh_is_name_and_equals)                                                                    \
  X(qpdf_oh_is_null)                                                                               \
  X(qpdf_oh_is_number)                                                                             \
  X(qpdf_oh_is_stream)                                                                             \
  X(qpdf_oh_is_string)                                                                             \
  X(qpdf_oh_new_array)                                                                             \
  X(qpdf_oh_new_binary_string)                                                                     \
  X(qpdf_oh_new_bool)                                                                              \
  X(qpdf_oh_new_dictionary)                                                                        \
  X(qpdf_oh_new_integer)                                                                           \
  X(qpdf_oh_new_name)                                                                              \
  X(qpdf_oh_new_null)                                                                              \
  X(qpdf_oh_new_object)                                                                            \
  X(qpdf_oh_new_real_from_string)                                                                  \
  X(qpdf_oh_new_stream)                                                                            \
  X(qpdf_oh_new_string)                                                                            \
  X(qpdf_oh_new_unicode_string)                                                                    \
  X(qpdf_oh_parse)                                                                                 \
  X(qpdf_oh_release)                                                                               \
  X(qpdf_oh_replace_key)                                                                           \
  X(qpdf_oh_unparse)                                                                               \
  X(qpdf_oh_unparse_resolved)                                                                      \
  X(qpdf_read_memory)                                                                              \
  X(qpdf_replace_object)                                                                           \
  X(qpdf_set_suppress_warnings)                                                                    \
  X(qpdf_silence_errors)                                                                           \
  X(qpdf_update_all_pages_cache)

typedef struct {
#define QPDFLIB_SLOT(name) __typeof__(name) *name;
  QPDFLIB_CALLS(QPDFLIB_SLOT)
#undef QPDFLIB_SLOT
} QpdfLib;

/* The table; valid once qpdflib_open() has returned true. */
extern QpdfLib qpdflib;

/* Opens libqpdf once (thread-safe; later calls return the first result).
 * false with *err set when it or one of its functions is missing. */
bool qpdflib_open(GError **err);

/* Starts qpdflib_open() on a thread of plan's, so that the library loads
 * on the other core while the book is laid out; qpdflib_open() waits for
 * it (pthread_once). Joined by runplan_end. */
void qpdflib_preload(RunPlan *plan);

/* The calls by their own names (not in qpdflib.c, which fills the table). */
#ifndef QPDFLIB_TABLE_ONLY
#define qpdf_cleanup (qpdflib.qpdf_cleanup)
#define qpdf_get_error (qpdflib.qpdf_get_error)
#define qpdf_get_error_full_text (qpdflib.qpdf_get_error_full_text)
#define qpdf_get_num_pages (qpdflib.qpdf_get_num_pages)
#define qpdf_get_object_by_id (qpdflib.qpdf_get_object_by_id)
#define qpdf_get_page_n (qpdflib.qpdf_get_page_n)
#define qpdf_get_pdf_version (qpdflib.qpdf_get_pdf_version)
#define qpdf_get_root (qpdflib.qpdf_get_root)
#define qpdf_get_trailer (qpdflib.qpdf_get_trailer)
#define qpdf_has_error (qpdflib.qpdf_has_error)
#define qpdf_init (qpdflib.qpdf_init)
#define qpdf_make_indirect_object (qpdflib.qpdf_make_indirect_object)
#define qpdf_oh_append_item (qpdflib.qpdf_oh_append_item)
#define qpdf_oh_get_array_item (qpdflib.qpdf_oh_get_array_item)
#define qpdf_oh_get_array_n_items (qpdflib.qpdf_oh_get_array_n_items)
#define qpdf_oh_get_generation (qpdflib.qpdf_oh_get_generation)
#define qpdf_oh_get_int_value (qpdflib.qpdf_oh_get_int_value)
#define qpdf_oh_get_int_value_as_int (qpdflib.qpdf_oh_get_int_value_as_int)
#define qpdf_oh_get_key (qpdflib.qpdf_oh_get_key)
#define qpdf_oh_get_name (qpdflib.qpdf_oh_get_name)
#define qpdf_oh_get_numeric_value (qpdflib.qpdf_oh_get_numeric_value)
#define qpdf_oh_get_object_id (qpdflib.qpdf_oh_get_object_id)
#define qpdf_oh_get_stream_data (qpdflib.qpdf_oh_get_stream_data)
#define qpdf_oh_get_utf8_value (qpdflib.qpdf_oh_get_utf8_value)
#define qpdf_oh_has_key (qpdflib.qpdf_oh_has_key)
#define qpdf_oh_is_array (qpdflib.qpdf_oh_is_array)
#define qpdf_oh_is_dictionary (qpdflib.qpdf_oh_is_dictionary)
#define qpdf_oh_is_indirect (qpdflib.qpdf_oh_is_indirect)
#define qpdf_oh_is_integer (qpdflib.qpdf_oh_is_integer)
#define qpdf_oh_is_name (qpdflib.qpdf_oh_is_name)
#define qpdf_oh_is_name_and_equals (qpdflib.qpdf_oh_is_name_and_equals)
#define qpdf_oh_is_null (qpdflib.qpdf_oh_is_null)
#define qpdf_oh_is_number (qpdflib.qpdf_oh_is_number)
#define qpdf_oh_is_stream (qpdflib.qpdf_oh_is_stream)
#define qpdf_oh_is_string (qpdflib.qpdf_oh_is_string)
#define qpdf_oh_new_array (qpdflib.qpdf_oh_new_array)
#define qpdf_oh_new_binary_string (qpdflib.qpdf_oh_new_binary_string)
#define qpdf_oh_new_bool (qpdflib.qpdf_oh_new_bool)
#define qpdf_oh_new_dictionary (qpdflib.qpdf_oh_new_dictionary)
#define qpdf_oh_new_integer (qpdflib.qpdf_oh_new_integer)
#define qpdf_oh_new_name (qpdflib.qpdf_oh_new_name)
#define qpdf_oh_new_null (qpdflib.qpdf_oh_new_null)
#define qpdf_oh_new_object (qpdflib.qpdf_oh_new_object)
#define qpdf_oh_new_real_from_string (qpdflib.qpdf_oh_new_real_from_string)
#define qpdf_oh_new_stream (qpdflib.qpdf_oh_new_stream)
#define qpdf_oh_new_string (qpdflib.qpdf_oh_new_string)
#define qpdf_oh_new_unicode_string (qpdflib.qpdf_oh_new_unicode_string)
#define qpdf_oh_parse (qpdflib.qpdf_oh_parse)
#define qpdf_oh_release (qpdflib.qpdf_oh_release)
#define qpdf_oh_replace_key (qpdflib.qpdf_oh_replace_key)
#define qpdf_oh_unparse (qpdflib.qpdf_oh_unparse)
#define qpdf_oh_unparse_resolved (qpdflib.qpdf_oh_unparse_resolved)
#define qpdf_read_memory (qpdflib.qpdf_read_memory)
#define qpdf_replace_object (qpdflib.qpdf_replace_object)
#define qpdf_set_suppress_warnings (qpdflib.qpdf_set_suppress_warnings)
#define qpdf_silence_errors (qpdflib.qpdf_silence_errors)
#define qpdf_update_all_pages_cache (qpdflib.qpdf_update_all_pages_cache)
#endif

#endif
