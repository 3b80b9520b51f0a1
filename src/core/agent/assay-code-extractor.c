/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A byte-at-a-time JSON scanner that only decodes one string: the top-level "code". It
 * never fails: a model's half-written or broken JSON just yields less code. */
#define G_LOG_DOMAIN "Assay-Agent"

#include "config.h"

#include <string.h>

#include "assay-code-extractor.h"

typedef enum
{
  SCAN_VALUE,         /* outside strings */
  SCAN_STRING,        /* inside a string we skip */
  SCAN_STRING_ESCAPE,
  SCAN_KEY,           /* inside a top-level key, collecting it */
  SCAN_KEY_ESCAPE,
  SCAN_CODE,          /* inside the code string, decoding it */
  SCAN_CODE_ESCAPE,
  SCAN_CODE_UNICODE,  /* after \u, collecting four hex digits */
} ScanState;

struct _AssayCodeExtractor
{
  ScanState  state;
  int        depth;         /* nesting of objects and arrays */
  gboolean   expect_key;    /* at depth 1, the next string is a key */
  gboolean   code_value;    /* at depth 1, the next value belongs to "code" */
  gboolean   complete;
  gboolean   seen_code;     /* only the first "code" counts */
  GString   *key;
  GString   *code;
  char       hex[5];
  guint      n_hex;
  gunichar   high_surrogate; /* waiting for its low half */
  GString   *pending_utf8;   /* raw bytes of a UTF-8 sequence cut by a fragment */
};

AssayCodeExtractor *
assay_code_extractor_new (void)
{
  AssayCodeExtractor *self = g_new0 (AssayCodeExtractor, 1);

  self->key = g_string_new (NULL);
  self->code = g_string_new (NULL);
  self->pending_utf8 = g_string_new (NULL);
  return self;
}

void
assay_code_extractor_free (AssayCodeExtractor *self)
{
  if (self == NULL)
    return;
  g_string_free (self->key, TRUE);
  g_string_free (self->code, TRUE);
  g_string_free (self->pending_utf8, TRUE);
  g_free (self);
}

void
assay_code_extractor_reset (AssayCodeExtractor *self)
{
  g_return_if_fail (self != NULL);
  self->state = SCAN_VALUE;
  self->depth = 0;
  self->expect_key = FALSE;
  self->code_value = FALSE;
  self->complete = FALSE;
  self->seen_code = FALSE;
  self->n_hex = 0;
  self->high_surrogate = 0;
  g_string_truncate (self->key, 0);
  g_string_truncate (self->code, 0);
  g_string_truncate (self->pending_utf8, 0);
}

const char *
assay_code_extractor_get_code (AssayCodeExtractor *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->code->str;
}

gboolean
assay_code_extractor_is_complete (AssayCodeExtractor *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->complete;
}

static void
assay_code_extractor_emit_unichar (GString  *out,
                                   gunichar  c)
{
  if (!g_unichar_validate (c) || c == 0)
    c = 0xFFFD;
  g_string_append_unichar (out, c);
}

/* A high surrogate not followed by a low one stands for nothing: write U+FFFD. */
static void
assay_code_extractor_flush_surrogate (AssayCodeExtractor *self,
                                      GString            *out)
{
  if (self->high_surrogate != 0)
    {
      assay_code_extractor_emit_unichar (out, 0xFFFD);
      self->high_surrogate = 0;
    }
}

static void
assay_code_extractor_finish_unicode_escape (AssayCodeExtractor *self,
                                            GString            *out)
{
  gunichar c = (gunichar) g_ascii_strtoull (self->hex, NULL, 16);

  if (c >= 0xD800 && c <= 0xDBFF)
    {
      assay_code_extractor_flush_surrogate (self, out);
      self->high_surrogate = c;
      return;
    }
  if (c >= 0xDC00 && c <= 0xDFFF)
    {
      if (self->high_surrogate != 0)
        {
          assay_code_extractor_emit_unichar (out,
                                             0x10000 + ((self->high_surrogate - 0xD800) << 10) + (c - 0xDC00));
          self->high_surrogate = 0;
        }
      else
        assay_code_extractor_emit_unichar (out, 0xFFFD);
      return;
    }
  assay_code_extractor_flush_surrogate (self, out);
  assay_code_extractor_emit_unichar (out, c);
}

/* Raw (unescaped) bytes of the code string: pass whole UTF-8 sequences only. */
static void
assay_code_extractor_append_raw_byte (AssayCodeExtractor *self,
                                      GString            *out,
                                      guchar              byte)
{
  const char *start;
  const char *end;

  assay_code_extractor_flush_surrogate (self, out);
  g_string_append_c (self->pending_utf8, (char) byte);
  start = self->pending_utf8->str;
  if (g_utf8_validate (start, self->pending_utf8->len, &end))
    {
      g_string_append_len (out, start, self->pending_utf8->len);
      g_string_truncate (self->pending_utf8, 0);
      return;
    }
  /* Still incomplete (at most 4 bytes), or broken: replace what cannot be completed. */
  if (g_utf8_get_char_validated (start, self->pending_utf8->len) == (gunichar) -2 &&
      self->pending_utf8->len < 4)
    return;
  assay_code_extractor_emit_unichar (out, 0xFFFD);
  g_string_truncate (self->pending_utf8, 0);
}

static void
assay_code_extractor_scan_byte (AssayCodeExtractor *self,
                                GString            *out,
                                guchar              c)
{
  switch (self->state)
    {
    case SCAN_VALUE:
      if (c == '{' || c == '[')
        {
          self->depth++;
          self->expect_key = (c == '{' && self->depth == 1);
          self->code_value = FALSE;
        }
      else if (c == '}' || c == ']')
        self->depth = MAX (self->depth - 1, 0);
      else if (c == ',' && self->depth == 1)
        {
          self->expect_key = TRUE;
          self->code_value = FALSE;
        }
      else if (c == ':' && self->depth == 1)
        {
          self->code_value = !self->seen_code && g_str_equal (self->key->str, "code");
          self->expect_key = FALSE;
        }
      else if (c == '"')
        {
          if (self->depth == 1 && self->expect_key)
            {
              g_string_truncate (self->key, 0);
              self->state = SCAN_KEY;
            }
          else if (self->depth == 1 && self->code_value)
            {
              self->seen_code = TRUE;
              self->code_value = FALSE;
              self->state = SCAN_CODE;
            }
          else
            self->state = SCAN_STRING;
        }
      else if (!g_ascii_isspace (c))
        self->code_value = FALSE; /* "code": 42 — not a string, nothing to show */
      break;

    case SCAN_STRING:
      if (c == '\\')
        self->state = SCAN_STRING_ESCAPE;
      else if (c == '"')
        self->state = SCAN_VALUE;
      break;

    case SCAN_STRING_ESCAPE:
      self->state = SCAN_STRING;
      break;

    case SCAN_KEY:
      /* Keys are compared raw: an escaped "code" key is not worth decoding. */
      if (c == '\\')
        self->state = SCAN_KEY_ESCAPE;
      else if (c == '"')
        {
          self->state = SCAN_VALUE;
          self->expect_key = FALSE;
        }
      else if (self->key->len < 64)
        g_string_append_c (self->key, (char) c);
      break;

    case SCAN_KEY_ESCAPE:
      g_string_append_c (self->key, '\\');
      self->state = SCAN_KEY;
      break;

    case SCAN_CODE:
      if (c == '\\')
        self->state = SCAN_CODE_ESCAPE;
      else if (c == '"')
        {
          assay_code_extractor_flush_surrogate (self, out);
          if (self->pending_utf8->len > 0)
            {
              assay_code_extractor_emit_unichar (out, 0xFFFD);
              g_string_truncate (self->pending_utf8, 0);
            }
          self->complete = TRUE;
          self->state = SCAN_VALUE;
        }
      else
        assay_code_extractor_append_raw_byte (self, out, c);
      break;

    case SCAN_CODE_ESCAPE:
      self->state = SCAN_CODE;
      if (c == 'u')
        {
          self->n_hex = 0;
          self->state = SCAN_CODE_UNICODE;
          break;
        }
      assay_code_extractor_flush_surrogate (self, out);
      switch (c)
        {
        case 'n': g_string_append_c (out, '\n'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        default: assay_code_extractor_emit_unichar (out, 0xFFFD); break;
        }
      break;

    case SCAN_CODE_UNICODE:
      if (!g_ascii_isxdigit (c))
        {
          /* A broken escape: show a replacement and read C as code again. */
          assay_code_extractor_emit_unichar (out, 0xFFFD);
          self->state = SCAN_CODE;
          assay_code_extractor_scan_byte (self, out, c);
          break;
        }
      self->hex[self->n_hex++] = (char) c;
      if (self->n_hex == 4)
        {
          self->hex[4] = '\0';
          assay_code_extractor_finish_unicode_escape (self, out);
          self->state = SCAN_CODE;
        }
      break;

    default:
      g_assert_not_reached ();
    }
}

char *
assay_code_extractor_feed (AssayCodeExtractor *self,
                           const char         *fragment,
                           gssize              length)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_return_val_if_fail (self != NULL, NULL);

  if (fragment == NULL)
    return g_strdup ("");
  if (length < 0)
    length = strlen (fragment);
  for (gssize i = 0; i < length && !self->complete; i++)
    assay_code_extractor_scan_byte (self, out, (guchar) fragment[i]);
  g_string_append_len (self->code, out->str, out->len);
  return g_string_free (g_steal_pointer (&out), FALSE);
}
