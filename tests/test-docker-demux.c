/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "assay-docker-demux.h"

typedef struct
{
  GByteArray *streams[3];
  guint       calls;
} Collected;

static void
collected_init (Collected *collected)
{
  for (guint i = 0; i < G_N_ELEMENTS (collected->streams); i++)
    collected->streams[i] = g_byte_array_new ();
  collected->calls = 0;
}

static void
collected_clear (Collected *collected)
{
  for (guint i = 0; i < G_N_ELEMENTS (collected->streams); i++)
    g_clear_pointer (&collected->streams[i], g_byte_array_unref);
}

static void
collect (int           stream,
         const guint8 *payload,
         gsize         len,
         gpointer      user_data)
{
  Collected *collected = user_data;

  g_assert_cmpint (stream, >=, 0);
  g_assert_cmpint (stream, <=, 2);
  g_assert_cmpuint (len, >, 0);
  g_assert_nonnull (payload);

  g_byte_array_append (collected->streams[stream], payload, len);
  collected->calls++;
}

static void
append_frame (GByteArray   *wire,
              guint8        stream,
              const guint8 *payload,
              guint32       len)
{
  guint8 header[8] = { stream, 0, 0, 0, len >> 24, len >> 16, len >> 8, len };

  g_byte_array_append (wire, header, sizeof header);
  if (len > 0)
    g_byte_array_append (wire, payload, len);
}

static void
append_text_frame (GByteArray *wire,
                   guint8      stream,
                   const char *text)
{
  append_frame (wire, stream, (const guint8 *) text, strlen (text));
}

static void
assert_bytes (GByteArray *array,
              const char *expected)
{
  g_assert_cmpmem (array->data, array->len, expected, strlen (expected));
}

/* A small stream that mixes stdout, stderr, stdin and empty frames. */
static GByteArray *
build_mixed_wire (void)
{
  GByteArray *wire = g_byte_array_new ();

  append_text_frame (wire, 1, "{\"type\":\"ready\"}\n");
  append_text_frame (wire, 2, "warning: ");
  append_frame (wire, 1, NULL, 0);
  append_text_frame (wire, 1, "out");
  append_text_frame (wire, 2, "something\n");
  append_text_frame (wire, 0, "echo");
  append_text_frame (wire, 1, "put\n");
  append_frame (wire, 2, NULL, 0);
  return wire;
}

static void
assert_mixed (Collected *collected)
{
  assert_bytes (collected->streams[1], "{\"type\":\"ready\"}\nout" "put\n");
  assert_bytes (collected->streams[2], "warning: something\n");
  assert_bytes (collected->streams[0], "echo");
}

static void
test_whole (void)
{
  g_autoptr(GByteArray) wire = build_mixed_wire ();
  g_autoptr(GError) error = NULL;
  AssayDockerDemux demux;
  Collected collected;

  collected_init (&collected);
  assay_docker_demux_init (&demux);
  g_assert_true (assay_docker_demux_is_idle (&demux));

  g_assert_true (assay_docker_demux_feed (&demux, wire->data, wire->len, collect, &collected, &error));
  g_assert_no_error (error);
  g_assert_true (assay_docker_demux_is_idle (&demux));
  assert_mixed (&collected);
  /* One call per non-empty frame when a frame arrives whole. */
  g_assert_cmpuint (collected.calls, ==, 6);

  collected_clear (&collected);
}

static void
test_byte_by_byte (void)
{
  g_autoptr(GByteArray) wire = build_mixed_wire ();
  AssayDockerDemux demux;
  Collected collected;

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  for (guint i = 0; i < wire->len; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (assay_docker_demux_feed (&demux, wire->data + i, 1, collect, &collected, &error));
      g_assert_no_error (error);
    }

  g_assert_true (assay_docker_demux_is_idle (&demux));
  assert_mixed (&collected);

  collected_clear (&collected);
}

static void
test_split_everywhere (void)
{
  g_autoptr(GByteArray) wire = build_mixed_wire ();

  /* Every split into three pieces: covers headers cut at every byte as well as
   * payloads cut anywhere. */
  for (guint i = 0; i <= wire->len; i++)
    for (guint j = i; j <= wire->len; j++)
      {
        g_autoptr(GError) error = NULL;
        AssayDockerDemux demux;
        Collected collected;

        collected_init (&collected);
        assay_docker_demux_init (&demux);

        g_assert_true (assay_docker_demux_feed (&demux, wire->data, i, collect, &collected, &error));
        g_assert_true (assay_docker_demux_feed (&demux, wire->data + i, j - i, collect, &collected, &error));
        g_assert_true (assay_docker_demux_feed (&demux, wire->data + j, wire->len - j, collect, &collected, &error));
        g_assert_no_error (error);
        g_assert_true (assay_docker_demux_is_idle (&demux));
        assert_mixed (&collected);

        collected_clear (&collected);
      }
}

static void
test_empty_feed (void)
{
  g_autoptr(GError) error = NULL;
  AssayDockerDemux demux;
  Collected collected;

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  g_assert_true (assay_docker_demux_feed (&demux, NULL, 0, collect, &collected, &error));
  g_assert_no_error (error);
  g_assert_true (assay_docker_demux_is_idle (&demux));
  g_assert_cmpuint (collected.calls, ==, 0);

  collected_clear (&collected);
}

static void
test_zero_length (void)
{
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  AssayDockerDemux demux;
  Collected collected;

  for (guint i = 0; i < 100; i++)
    append_frame (wire, i % 3, NULL, 0);

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  g_assert_true (assay_docker_demux_feed (&demux, wire->data, wire->len, collect, &collected, &error));
  g_assert_no_error (error);
  g_assert_true (assay_docker_demux_is_idle (&demux));
  g_assert_cmpuint (collected.calls, ==, 0);

  collected_clear (&collected);
}

static void
test_large (void)
{
  /* 5 MiB + 3: the size needs three bytes of the length field. */
  const gsize size = 5 * 1024 * 1024 + 3;
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  g_autofree guint8 *payload = g_malloc (size);
  AssayDockerDemux demux;
  Collected collected;
  gsize offset = 0;
  guint step = 1;

  for (gsize i = 0; i < size; i++)
    payload[i] = (guint8) (i * 7 + (i >> 13));

  append_frame (wire, 2, (const guint8 *) "e", 1);
  append_frame (wire, 1, payload, size);
  append_frame (wire, 2, (const guint8 *) "f", 1);
  g_assert_cmpuint (wire->data[13], ==, 0x00);
  g_assert_cmpuint (wire->data[14], ==, 0x50);
  g_assert_cmpuint (wire->data[16], ==, 0x03);

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  /* Uneven pieces so frame boundaries fall at odd places. */
  while (offset < wire->len)
    {
      g_autoptr(GError) error = NULL;
      gsize n = MIN ((gsize) step, wire->len - offset);

      g_assert_true (assay_docker_demux_feed (&demux, wire->data + offset, n, collect, &collected, &error));
      g_assert_no_error (error);
      offset += n;
      step = step * 3 + 1;
      if (step > 300000)
        step = 5;

      if (offset > 9 && offset < wire->len - 9)
        g_assert_false (assay_docker_demux_is_idle (&demux));
    }

  g_assert_true (assay_docker_demux_is_idle (&demux));
  g_assert_cmpmem (collected.streams[1]->data, collected.streams[1]->len, payload, size);
  assert_bytes (collected.streams[2], "ef");

  collected_clear (&collected);
}

static void
test_interleaved (void)
{
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  g_autoptr(GString) expected_out = g_string_new (NULL);
  g_autoptr(GString) expected_err = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  AssayDockerDemux demux;
  Collected collected;

  for (guint i = 0; i < 500; i++)
    {
      g_autofree char *text = g_strdup_printf ("line %u\n", i);
      guint8 stream = (i % 3 == 0 || i % 7 == 0) ? 2 : 1;

      append_text_frame (wire, stream, text);
      g_string_append (stream == 1 ? expected_out : expected_err, text);
    }

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  /* Feed in 13-byte pieces, which cut both headers and payloads. */
  for (guint offset = 0; offset < wire->len; offset += 13)
    g_assert_true (assay_docker_demux_feed (&demux, wire->data + offset,
                                            MIN (13u, wire->len - offset),
                                            collect, &collected, &error));
  g_assert_no_error (error);
  g_assert_true (assay_docker_demux_is_idle (&demux));
  assert_bytes (collected.streams[1], expected_out->str);
  assert_bytes (collected.streams[2], expected_err->str);
  g_assert_cmpuint (collected.streams[0]->len, ==, 0);

  collected_clear (&collected);
}

static void
test_invalid_type (void)
{
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  AssayDockerDemux demux;
  Collected collected;

  append_text_frame (wire, 1, "before");
  append_text_frame (wire, 3, "bad");

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  g_assert_false (assay_docker_demux_feed (&demux, wire->data, wire->len, collect, &collected, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  /* What came before the bad header was delivered, nothing after it. */
  assert_bytes (collected.streams[1], "before");
  g_assert_cmpuint (collected.calls, ==, 1);
  g_assert_false (assay_docker_demux_is_idle (&demux));

  /* The demuxer stays failed, even for a valid frame. */
  g_byte_array_set_size (wire, 0);
  append_text_frame (wire, 1, "after");
  g_assert_false (assay_docker_demux_feed (&demux, wire->data, wire->len, collect, &collected, &error2));
  g_assert_error (error2, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpuint (collected.calls, ==, 1);
  g_assert_false (assay_docker_demux_is_idle (&demux));

  collected_clear (&collected);
}

static void
test_invalid_type_split (void)
{
  const guint8 header[8] = { 0xff, 0, 0, 0, 0, 0, 0, 1 };
  AssayDockerDemux demux;
  Collected collected;

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  /* The error shows when the header is complete, not before. */
  for (guint i = 0; i < 7; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (assay_docker_demux_feed (&demux, header + i, 1, collect, &collected, &error));
      g_assert_no_error (error);
      g_assert_false (assay_docker_demux_is_idle (&demux));
    }

  {
    g_autoptr(GError) error = NULL;

    g_assert_false (assay_docker_demux_feed (&demux, header + 7, 1, collect, &collected, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }

  g_assert_cmpuint (collected.calls, ==, 0);
  collected_clear (&collected);
}

static void
test_padding (void)
{
  for (guint position = 1; position <= 3; position++)
    {
      guint8 frame[10] = { 1, 0, 0, 0, 0, 0, 0, 2, 'h', 'i' };
      g_autoptr(GError) error = NULL;
      AssayDockerDemux demux;
      Collected collected;

      frame[position] = 0x01;

      collected_init (&collected);
      assay_docker_demux_init (&demux);

      g_assert_false (assay_docker_demux_feed (&demux, frame, sizeof frame, collect, &collected, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_cmpuint (collected.calls, ==, 0);
      g_assert_false (assay_docker_demux_is_idle (&demux));

      collected_clear (&collected);
    }
}

static void
test_idle (void)
{
  g_autoptr(GByteArray) wire = g_byte_array_new ();
  AssayDockerDemux demux;
  Collected collected;

  append_text_frame (wire, 1, "abc");
  append_frame (wire, 2, NULL, 0);
  append_text_frame (wire, 2, "d");

  collected_init (&collected);
  assay_docker_demux_init (&demux);

  /* Idle exactly at the frame boundaries: after 0, 11, 19 and 28 bytes. */
  for (guint i = 0; i <= wire->len; i++)
    {
      g_autoptr(GError) error = NULL;
      gboolean boundary = (i == 0 || i == 11 || i == 19 || i == 28);

      g_assert_cmpint (assay_docker_demux_is_idle (&demux), ==, boundary);
      if (i < wire->len)
        {
          g_assert_true (assay_docker_demux_feed (&demux, wire->data + i, 1, collect, &collected, &error));
          g_assert_no_error (error);
        }
    }

  g_assert_cmpuint (wire->len, ==, 28);

  /* A cut frame is not idle: a header with a length, but no payload yet. */
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (assay_docker_demux_feed (&demux, wire->data, 8, collect, &collected, &error));
    g_assert_false (assay_docker_demux_is_idle (&demux));
  }

  /* init resets the state. */
  assay_docker_demux_init (&demux);
  g_assert_true (assay_docker_demux_is_idle (&demux));

  collected_clear (&collected);
}

static void
test_null_func (void)
{
  g_autoptr(GByteArray) wire = build_mixed_wire ();
  g_autoptr(GError) error = NULL;
  AssayDockerDemux demux;

  assay_docker_demux_init (&demux);
  g_assert_true (assay_docker_demux_feed (&demux, wire->data, wire->len, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (assay_docker_demux_is_idle (&demux));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/assay/docker/demux/whole", test_whole);
  g_test_add_func ("/assay/docker/demux/byte-by-byte", test_byte_by_byte);
  g_test_add_func ("/assay/docker/demux/split-everywhere", test_split_everywhere);
  g_test_add_func ("/assay/docker/demux/empty-feed", test_empty_feed);
  g_test_add_func ("/assay/docker/demux/zero-length", test_zero_length);
  g_test_add_func ("/assay/docker/demux/large", test_large);
  g_test_add_func ("/assay/docker/demux/interleaved", test_interleaved);
  g_test_add_func ("/assay/docker/demux/invalid-type", test_invalid_type);
  g_test_add_func ("/assay/docker/demux/invalid-type-split", test_invalid_type_split);
  g_test_add_func ("/assay/docker/demux/padding", test_padding);
  g_test_add_func ("/assay/docker/demux/idle", test_idle);
  g_test_add_func ("/assay/docker/demux/null-func", test_null_func);

  return g_test_run ();
}
