/* SPDX-License-Identifier: GPL-3.0-or-later */
/* OpenAI's Containers API over libcurl (see the header). */
#define G_LOG_DOMAIN "Assay-Hosted"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <curl/curl.h>
#include <string.h>

#include "assay-openai-container.h"
#include "assay-json.h"
#include "assay-llm-http.h"

#define DEFAULT_BASE        "https://api.openai.com/v1"
#define MAX_REPLY_BYTES     (1024 * 1024)
#define CONNECT_TIMEOUT_S   30
#define IDLE_TIMEOUT_S      120

G_DEFINE_QUARK (assay-hosted-error-quark, assay_hosted_error)

struct _AssayOpenaiContainer
{
  gatomicrefcount  ref;
  char            *base;
  char            *key;
  char            *id;
};

AssayOpenaiContainer *
assay_openai_container_new (const char *base_url,
                            const char *api_key)
{
  AssayOpenaiContainer *self = g_new0 (AssayOpenaiContainer, 1);

  g_atomic_ref_count_init (&self->ref);
  self->base = assay_llm_http_build_base (base_url, DEFAULT_BASE);
  while (g_str_has_suffix (self->base, "/"))
    self->base[strlen (self->base) - 1] = '\0';
  self->key = g_strdup (api_key != NULL ? api_key : "");
  return self;
}

AssayOpenaiContainer *
assay_openai_container_ref (AssayOpenaiContainer *self)
{
  g_atomic_ref_count_inc (&self->ref);
  return self;
}

void
assay_openai_container_unref (AssayOpenaiContainer *self)
{
  if (self == NULL || !g_atomic_ref_count_dec (&self->ref))
    return;
  g_free (self->base);
  g_free (self->key);
  g_free (self->id);
  g_free (self);
}

const char *
assay_openai_container_get_id (AssayOpenaiContainer *self)
{
  return self->id;
}

/* ---- one HTTP exchange, retried ------------------------------------------------------- */

typedef struct
{
  GByteArray   *body;
  gsize         max;
  gboolean      too_large;
  gint64        retry_after_ms;
  GCancellable *cancellable;
} Exchange;

static size_t
assay_openai_container_write_cb (char   *data,
                                 size_t  size,
                                 size_t  n,
                                 void   *user_data)
{
  Exchange *exchange = user_data;
  gsize len = size * n;

  if (exchange->body->len + len > exchange->max)
    {
      exchange->too_large = TRUE;
      return 0;
    }
  g_byte_array_append (exchange->body, (const guint8 *) data, len);
  return len;
}

static size_t
assay_openai_container_header_cb (char   *data,
                                  size_t  size,
                                  size_t  n,
                                  void   *user_data)
{
  Exchange *exchange = user_data;
  gsize len = size * n;
  g_autofree char *line = g_strndup (data, len);
  char *colon = strchr (line, ':');

  if (colon != NULL)
    {
      *colon = '\0';
      if (g_ascii_strcasecmp (line, "retry-after") == 0)
        {
          guint64 seconds;

          if (g_ascii_string_to_unsigned (g_strstrip (colon + 1), 10, 0, 3600, &seconds, NULL))
            exchange->retry_after_ms = (gint64) seconds * 1000;
        }
    }
  return len;
}

static int
assay_openai_container_progress_cb (void       *user_data,
                                    curl_off_t  dltotal,
                                    curl_off_t  dlnow,
                                    curl_off_t  ultotal,
                                    curl_off_t  ulnow)
{
  Exchange *exchange = user_data;

  return exchange->cancellable != NULL && g_cancellable_is_cancelled (exchange->cancellable) ? 1 : 0;
}

static double
assay_openai_container_retry_scale (void)
{
  const char *text = g_getenv ("ASSAY_LLM_RETRY_SCALE");
  double scale = text != NULL ? g_ascii_strtod (text, NULL) : 1.0;

  return scale >= 0 && scale <= 1 ? scale : 1.0;
}

/* The server's reason in an error reply ({"error": {"message", "code", "type"}}), sanitised. */
static char *
assay_openai_container_reason (GByteArray *body)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *error = NULL;
  const char *message = NULL;

  if (body->len > 0)
    {
      g_autofree char *text = g_strndup ((const char *) body->data, body->len);

      node = assay_json_from_untrusted (text, NULL);
    }
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    error = assay_json_get_object (json_node_get_object (node), "error");
  message = assay_json_get_string (error, "message");
  return assay_llm_sanitize_message (message != NULL ? message : "no reason given", -1);
}

static gboolean
assay_openai_container_is_expired (guint       status,
                                   GByteArray *body)
{
  g_autofree char *reason = assay_openai_container_reason (body);
  g_autofree char *lower = g_ascii_strdown (reason, -1);

  return status == 404 || strstr (lower, "expired") != NULL;
}

/* METHOD PATH with JSON (may be NULL) or MIME (may be NULL); the reply's body in REPLY.
 * FILE_CALL: a 404 means the file, not the container. */
static gboolean
assay_openai_container_exchange (AssayOpenaiContainer  *self,
                                 const char            *method,
                                 const char            *path,
                                 const char            *json,
                                 const char            *upload_path,
                                 const char            *upload_name,
                                 gsize                  max_reply,
                                 GByteArray           **reply,
                                 guint                 *status_out,
                                 GCancellable          *cancellable,
                                 GError               **error)
{
  g_autofree char *url = g_strconcat (self->base, path, NULL);
  g_autofree char *auth = g_strdup_printf ("Authorization: Bearer %s", self->key);
  guint64 backoff = ASSAY_LLM_BACKOFF_BASE_MS;

  for (guint attempt = 0; ; attempt++)
    {
      CURL *easy = curl_easy_init ();
      struct curl_slist *headers = NULL;
      curl_mime *mime = NULL;
      Exchange exchange = { g_byte_array_new (), max_reply, FALSE, -1, cancellable };
      CURLcode code;
      long status = 0;
      gboolean retry;

      headers = curl_slist_append (headers, auth);
      curl_easy_setopt (easy, CURLOPT_URL, url);
      curl_easy_setopt (easy, CURLOPT_PROTOCOLS_STR, "http,https");
      curl_easy_setopt (easy, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt (easy, CURLOPT_USERAGENT, "Assay/" PACKAGE_VERSION);
      curl_easy_setopt (easy, CURLOPT_CONNECTTIMEOUT, (long) CONNECT_TIMEOUT_S);
      curl_easy_setopt (easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt (easy, CURLOPT_LOW_SPEED_TIME, (long) IDLE_TIMEOUT_S);
      curl_easy_setopt (easy, CURLOPT_CUSTOMREQUEST, method);
      curl_easy_setopt (easy, CURLOPT_WRITEFUNCTION, assay_openai_container_write_cb);
      curl_easy_setopt (easy, CURLOPT_WRITEDATA, &exchange);
      curl_easy_setopt (easy, CURLOPT_HEADERFUNCTION, assay_openai_container_header_cb);
      curl_easy_setopt (easy, CURLOPT_HEADERDATA, &exchange);
      curl_easy_setopt (easy, CURLOPT_XFERINFOFUNCTION, assay_openai_container_progress_cb);
      curl_easy_setopt (easy, CURLOPT_XFERINFODATA, &exchange);
      curl_easy_setopt (easy, CURLOPT_NOPROGRESS, 0L);
      if (json != NULL)
        {
          headers = curl_slist_append (headers, "Content-Type: application/json");
          curl_easy_setopt (easy, CURLOPT_POSTFIELDS, json);
        }
      else if (upload_path != NULL)
        {
          curl_mimepart *part;

          mime = curl_mime_init (easy);
          part = curl_mime_addpart (mime);
          curl_mime_name (part, "file");
          curl_mime_filedata (part, upload_path);
          curl_mime_filename (part, upload_name);
          curl_easy_setopt (easy, CURLOPT_MIMEPOST, mime);
        }
      curl_easy_setopt (easy, CURLOPT_HTTPHEADER, headers);

      code = curl_easy_perform (easy);
      curl_easy_getinfo (easy, CURLINFO_RESPONSE_CODE, &status);
      curl_mime_free (mime);
      curl_slist_free_all (headers);
      curl_easy_cleanup (easy);

      if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        {
          g_byte_array_unref (exchange.body);
          return !g_cancellable_set_error_if_cancelled (cancellable, error);
        }
      if (exchange.too_large)
        {
          g_autofree char *size = g_format_size (max_reply);

          g_byte_array_unref (exchange.body);
          g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_TOO_LARGE,
                       _("OpenAI's container sent a file larger than %s, which Assay does not take"), size);
          return FALSE;
        }

      retry = code != CURLE_OK || status == 408 || status == 409 || status == 429 || status >= 500;
      if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        retry = FALSE;
      if (retry && attempt < ASSAY_LLM_MAX_RETRIES)
        {
          gint64 wait = exchange.retry_after_ms >= 0 ? exchange.retry_after_ms : (gint64) backoff;

          g_byte_array_unref (exchange.body);
          if (wait > ASSAY_LLM_MAX_RETRY_AFTER_MS)
            wait = ASSAY_LLM_MAX_RETRY_AFTER_MS;
          g_debug ("%s %s: retry %u in %" G_GINT64_FORMAT " ms", method, path, attempt + 1, wait);
          g_usleep ((gulong) (wait * 1000 * assay_openai_container_retry_scale ()));
          backoff = MIN (backoff * 2, ASSAY_LLM_BACKOFF_CAP_MS);
          continue;
        }

      if (code != CURLE_OK)
        {
          g_byte_array_unref (exchange.body);
          g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_NETWORK,
                       _("Could not reach OpenAI's containers: %s"), curl_easy_strerror (code));
          return FALSE;
        }
      if (status_out != NULL)
        *status_out = (guint) status;
      *reply = exchange.body;
      return TRUE;
    }
}

/* FAILURE: the whole sentence for the analyst ("OpenAI could not make a container"). */
static gboolean
assay_openai_container_check (guint        status,
                              GByteArray  *body,
                              gboolean     about_container,
                              const char  *failure,
                              GError     **error)
{
  g_autofree char *reason = NULL;

  if (status >= 200 && status < 300)
    return TRUE;
  reason = assay_openai_container_reason (body);
  if (status == 401 || status == 403)
    g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_AUTH,
                 _("OpenAI refused the key for its containers: %s"), reason);
  else if (about_container && assay_openai_container_is_expired (status, body))
    g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_EXPIRED,
                 _("OpenAI's container of this session has expired: %s"), reason);
  else
    g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED,
                 "%s (HTTP %u): %s", failure, status, reason);
  return FALSE;
}

static char *
assay_openai_container_escape (const char *id)
{
  return g_uri_escape_string (id != NULL ? id : "", NULL, FALSE);
}

gboolean
assay_openai_container_create (AssayOpenaiContainer  *self,
                               const char            *name,
                               GCancellable          *cancellable,
                               GError               **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *json = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GByteArray) reply = NULL;
  const char *id;
  guint status = 0;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "expires_after");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "anchor");
  json_builder_add_string_value (builder, "last_active_at");
  json_builder_set_member_name (builder, "minutes");
  json_builder_add_int_value (builder, ASSAY_OPENAI_CONTAINER_MINUTES);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);
  json = json_to_string (body, FALSE);

  if (!assay_openai_container_exchange (self, "POST", "/containers", json, NULL, NULL, MAX_REPLY_BYTES,
                                        &reply, &status, cancellable, error))
    return FALSE;
  if (!assay_openai_container_check (status, reply, FALSE, _("OpenAI could not make a container"), error))
    return FALSE;
  text = g_strndup ((const char *) reply->data, reply->len);
  node = assay_json_from_untrusted (text, NULL);
  id = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? assay_json_get_string (json_node_get_object (node), "id") : NULL;
  if (id == NULL || id[0] == '\0' || strlen (id) > 128 || !g_str_is_ascii (id))
    {
      g_set_error_literal (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED,
                           _("OpenAI made a container but its reply named none"));
      return FALSE;
    }
  g_free (self->id);
  self->id = g_strdup (id);
  return TRUE;
}

gboolean
assay_openai_container_upload (AssayOpenaiContainer  *self,
                               const char            *path,
                               const char            *name,
                               char                 **file_id,
                               GCancellable          *cancellable,
                               GError               **error)
{
  g_autofree char *escaped = assay_openai_container_escape (self->id);
  g_autofree char *url_path = g_strdup_printf ("/containers/%s/files", escaped);
  g_autoptr(GByteArray) reply = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autofree char *what = g_strdup_printf (_("OpenAI's container did not take the file %s"), name);
  const char *id;
  guint status = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, ASSAY_HOSTED_ERROR, ASSAY_HOSTED_ERROR_FAILED,
                   _("The dataset %s is not a file that can be sent"), name);
      return FALSE;
    }
  if (!assay_openai_container_exchange (self, "POST", url_path, NULL, path, name, MAX_REPLY_BYTES,
                                        &reply, &status, cancellable, error))
    return FALSE;
  if (!assay_openai_container_check (status, reply, TRUE, what, error))
    return FALSE;
  text = g_strndup ((const char *) reply->data, reply->len);
  node = assay_json_from_untrusted (text, NULL);
  id = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? assay_json_get_string (json_node_get_object (node), "id") : NULL;
  if (file_id != NULL)
    *file_id = g_strdup (id);
  return TRUE;
}

GBytes *
assay_openai_container_download (AssayOpenaiContainer  *self,
                                 const char            *container_id,
                                 const char            *file_id,
                                 gsize                  max_bytes,
                                 GCancellable          *cancellable,
                                 GError               **error)
{
  g_autofree char *container = assay_openai_container_escape (container_id != NULL ? container_id : self->id);
  g_autofree char *file = assay_openai_container_escape (file_id);
  g_autofree char *url_path = g_strdup_printf ("/containers/%s/files/%s/content", container, file);
  GByteArray *reply = NULL;
  guint status = 0;

  if (!assay_openai_container_exchange (self, "GET", url_path, NULL, NULL, NULL, max_bytes,
                                        &reply, &status, cancellable, error))
    return NULL;
  if (!assay_openai_container_check (status, reply, FALSE, _("OpenAI's container did not send the file back"), error))
    {
      g_byte_array_unref (reply);
      return NULL;
    }
  return g_byte_array_free_to_bytes (reply);
}

gboolean
assay_openai_container_delete (AssayOpenaiContainer  *self,
                               GCancellable          *cancellable,
                               GError               **error)
{
  g_autofree char *escaped = NULL;
  g_autofree char *url_path = NULL;
  g_autoptr(GByteArray) reply = NULL;
  guint status = 0;

  if (self->id == NULL)
    return TRUE;
  escaped = assay_openai_container_escape (self->id);
  url_path = g_strdup_printf ("/containers/%s", escaped);
  if (!assay_openai_container_exchange (self, "DELETE", url_path, NULL, NULL, NULL, MAX_REPLY_BYTES,
                                        &reply, &status, cancellable, error))
    return FALSE;
  if (status != 404 && !assay_openai_container_check (status, reply, FALSE, _("OpenAI could not remove the container"), error))
    return FALSE;
  g_clear_pointer (&self->id, g_free);
  return TRUE;
}

char *
assay_openai_container_safe_name (const char *name,
                                  const char *fallback)
{
  g_autofree char *valid = g_utf8_make_valid (name != NULL ? name : "", -1);
  const char *base = valid;
  GString *out = g_string_new (NULL);

  /* Its last part only: "/mnt/data/../../x" is "x". */
  for (const char *p = valid; *p != '\0'; p++)
    if (*p == '/' || *p == '\\')
      base = p + 1;
  for (const char *p = base; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c) || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' ||
          c == '|' || c == 0x202E || c == 0x200E || c == 0x200F || (c >= 0x2066 && c <= 0x2069))
        g_string_append_c (out, '_');
      else
        g_string_append_unichar (out, c);
    }
  /* At most 120 bytes, cut on a character, the extension kept when short. */
  if (out->len > 120)
    {
      const char *dot = strrchr (out->str, '.');
      g_autofree char *ext = dot != NULL && strlen (dot) <= 10 ? g_strdup (dot) : g_strdup ("");
      gsize keep = 120 - strlen (ext);
      const char *end = out->str + keep;

      while (end > out->str && (((guchar) *end) & 0xC0) == 0x80)
        end--;
      g_string_truncate (out, end - out->str);
      g_string_append (out, ext);
    }
  while (out->len > 0 && (out->str[0] == '.' || out->str[0] == ' '))
    g_string_erase (out, 0, 1);
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return g_strdup (fallback);
    }
  return g_string_free (out, FALSE);
}
