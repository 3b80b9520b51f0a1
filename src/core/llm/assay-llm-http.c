/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <string.h>

#include <curl/curl.h>

#include "assay-llm-http.h"
#include "assay-sse-parser.h"
#include "assay-json.h"

#define CONNECT_TIMEOUT_S      10
#define IDLE_TIMEOUT_S         120
#define MAX_ERROR_BODY         (1024 * 1024)
#define MAX_JSON_BODY          (32 * 1024 * 1024)
#define REDACT_WINDOW          8

struct _AssayLlmHttpRequest
{
  AssayLlmFlavor  flavor;
  char           *base_url;
  char           *url;
  char           *api_key;
  char           *model;
  GPtrArray      *headers;
  GBytes         *body;
};

AssayLlmHttpRequest *
assay_llm_http_request_new (AssayLlmFlavor  flavor,
                            const char     *base_url,
                            const char     *path,
                            const char     *api_key,
                            const char     *model)
{
  AssayLlmHttpRequest *request = g_new0 (AssayLlmHttpRequest, 1);

  request->flavor = flavor;
  request->base_url = g_strdup (base_url);
  request->url = g_strconcat (base_url, path, NULL);
  request->api_key = (api_key != NULL && api_key[0] != '\0') ? g_strdup (api_key) : NULL;
  request->model = g_strdup (model);
  request->headers = g_ptr_array_new_with_free_func (g_free);
  return request;
}

void
assay_llm_http_request_free (AssayLlmHttpRequest *request)
{
  if (request == NULL)
    return;
  g_free (request->base_url);
  g_free (request->url);
  if (request->api_key != NULL)
    memset (request->api_key, 0, strlen (request->api_key));
  g_free (request->api_key);
  g_free (request->model);
  /* The headers may carry the key too. */
  for (guint i = 0; i < request->headers->len; i++)
    {
      char *header = g_ptr_array_index (request->headers, i);
      memset (header, 0, strlen (header));
    }
  g_ptr_array_unref (request->headers);
  g_clear_pointer (&request->body, g_bytes_unref);
  g_free (request);
}

void
assay_llm_http_request_add_header (AssayLlmHttpRequest *request,
                                   const char          *name,
                                   const char          *value)
{
  g_ptr_array_add (request->headers, g_strdup_printf ("%s: %s", name, value));
}

void
assay_llm_http_request_set_json (AssayLlmHttpRequest *request,
                                 JsonNode            *body)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  gsize len = 0;
  char *text;

  json_generator_set_root (generator, body);
  text = json_generator_to_data (generator, &len);
  g_clear_pointer (&request->body, g_bytes_unref);
  request->body = g_bytes_new_take (text, len);
}

char *
assay_llm_http_build_base (const char *base_url,
                           const char *default_base)
{
  g_autofree char *base = g_strdup (base_url != NULL && base_url[0] != '\0' ? base_url
                                                                          : default_base);
  gsize len = strlen (base);

  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';
  return g_steal_pointer (&base);
}

/* ------------------------------------------------------------------------------------ */
/* Events from the worker, handed to the caller's main context in order. */

typedef enum
{
  ITEM_TEXT,
  ITEM_TOOL_CALL,
  ITEM_RETRYING,
  ITEM_COMPLETE,
} ItemKind;

typedef struct
{
  ItemKind  kind;
  guint     index;
  guint     delay_ms;
  char     *id;
  char     *name;
  char     *text;
} Item;

static void
assay_llm_http_item_free (Item *item)
{
  g_free (item->id);
  g_free (item->name);
  g_free (item->text);
  g_free (item);
}

typedef struct
{
  /* Main context side. */
  GTask               *task;
  AssayLlmProvider    *provider;
  GMainContext        *context;

  GMutex               mutex;
  GQueue               items;
  gboolean             dispatch_pending;

  /* Worker side. */
  AssayLlmHttpRequest *request;
  GCancellable        *cancellable;
  gboolean             streaming;
  CURLM               *multi;
  AssayLlmTurn        *turn;
  AssaySseParser      *parser;

  /* Results, read on the main context after ITEM_COMPLETE. */
  AssayLlmResponse    *response;
  GStrv                models;
  GError              *error;
} Job;

static void
assay_llm_http_job_clear (Job *job)
{
  g_clear_object (&job->task);
  g_clear_object (&job->provider);
  g_clear_pointer (&job->context, g_main_context_unref);
  g_mutex_clear (&job->mutex);
  g_queue_clear_full (&job->items, (GDestroyNotify) assay_llm_http_item_free);
  g_clear_pointer (&job->request, assay_llm_http_request_free);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->turn, assay_llm_turn_free);
  g_clear_pointer (&job->parser, assay_sse_parser_free);
  g_clear_pointer (&job->response, assay_llm_response_free);
  g_clear_pointer (&job->models, g_strfreev);
  g_clear_error (&job->error);
}

static Job *
assay_llm_http_job_ref (Job *job)
{
  return g_atomic_rc_box_acquire (job);
}

static void
assay_llm_http_job_unref (Job *job)
{
  g_atomic_rc_box_release_full (job, (GDestroyNotify) assay_llm_http_job_clear);
}

static void
assay_llm_http_job_handle_item (Job  *job,
                                Item *item)
{
  switch (item->kind)
    {
    case ITEM_TEXT:
      assay_llm_provider_emit_text_delta (job->provider, item->text);
      break;

    case ITEM_TOOL_CALL:
      assay_llm_provider_emit_tool_call_delta (job->provider, item->index, item->id, item->name,
                                               item->text);
      break;

    case ITEM_RETRYING:
      assay_llm_provider_emit_retrying (job->provider, item->index, item->delay_ms, item->text);
      break;

    case ITEM_COMPLETE:
      {
        g_autoptr(GTask) task = g_steal_pointer (&job->task);

        if (job->error != NULL)
          g_task_return_error (task, g_steal_pointer (&job->error));
        else if (job->streaming)
          g_task_return_pointer (task, g_steal_pointer (&job->response),
                                 (GDestroyNotify) assay_llm_response_free);
        else
          g_task_return_pointer (task, g_steal_pointer (&job->models),
                                 (GDestroyNotify) g_strfreev);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static gboolean
assay_llm_http_job_dispatch (gpointer data)
{
  Job *job = data;

  for (;;)
    {
      Item *item;

      g_mutex_lock (&job->mutex);
      item = g_queue_pop_head (&job->items);
      if (item == NULL)
        job->dispatch_pending = FALSE;
      g_mutex_unlock (&job->mutex);

      if (item == NULL)
        break;
      assay_llm_http_job_handle_item (job, item);
      assay_llm_http_item_free (item);
    }

  return G_SOURCE_REMOVE;
}

/* Called in the worker. */
static void
assay_llm_http_job_push (Job  *job,
                         Item *item)
{
  g_mutex_lock (&job->mutex);
  g_queue_push_tail (&job->items, item);
  if (!job->dispatch_pending)
    {
      GSource *source = g_idle_source_new ();

      job->dispatch_pending = TRUE;
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source,
                             assay_llm_http_job_dispatch,
                             assay_llm_http_job_ref (job),
                             (GDestroyNotify) assay_llm_http_job_unref);
      g_source_set_static_name (source, "[assay] model stream");
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
  g_mutex_unlock (&job->mutex);
}

static void
assay_llm_http_turn_emit_cb (int         index,
                             const char *id,
                             const char *name,
                             const char *text,
                             gpointer    user_data)
{
  Job *job = user_data;
  Item *item = g_new0 (Item, 1);

  item->kind = index < 0 ? ITEM_TEXT : ITEM_TOOL_CALL;
  item->index = index < 0 ? 0 : (guint) index;
  item->id = g_strdup (id);
  item->name = g_strdup (name);
  item->text = g_strdup (text);
  assay_llm_http_job_push (job, item);
}

/* ------------------------------------------------------------------------------------ */
/* One attempt. */

typedef struct
{
  Job        *job;
  CURL       *easy;
  long        status;
  gint64      retry_after_ms;     /* -1: the server did not say */
  GByteArray *body;
  gboolean    body_too_large;
  GError     *stream_error;
  gboolean    received;
  gint64      bytes_in;
  gint64      sent_at;
} Attempt;

/* host[:port] of URL, without any user or password it may hold. */
static char *
assay_llm_http_host_of (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup ("?");
  if (g_uri_get_port (uri) > 0)
    return g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  return g_strdup (g_uri_get_host (uri));
}

static double
assay_llm_http_retry_scale (void)
{
  const char *text = g_getenv ("ASSAY_LLM_RETRY_SCALE");
  double scale;

  if (text == NULL || text[0] == '\0')
    return 1.0;
  scale = g_ascii_strtod (text, NULL);
  return CLAMP (scale, 0.0, 1.0);
}

static gint64
assay_llm_http_parse_retry_after (const char *value)
{
  char *end = NULL;
  double seconds;
  time_t when;

  while (g_ascii_isspace (*value))
    value++;
  seconds = g_ascii_strtod (value, &end);
  if (end != value && (*end == '\0' || g_ascii_isspace (*end)))
    return seconds >= 0 && seconds < 1e9 ? (gint64) (seconds * 1000) : -1;

  when = curl_getdate (value, NULL);
  if (when == (time_t) -1)
    return -1;
  return MAX ((gint64) 0, ((gint64) when - g_get_real_time () / G_USEC_PER_SEC) * 1000);
}

static size_t
assay_llm_http_header_cb (char   *buffer,
                          size_t  size,
                          size_t  nitems,
                          void   *user_data)
{
  Attempt *attempt = user_data;
  gsize len = size * nitems;
  g_autofree char *line = g_strndup (buffer, len);
  char *colon;

  g_strchomp (line);
  if (g_str_has_prefix (line, "HTTP/"))
    {
      /* A new response (after a 100 Continue): forget the last one's headers. */
      attempt->retry_after_ms = -1;
      return len;
    }

  colon = strchr (line, ':');
  if (colon == NULL)
    return len;
  *colon = '\0';

  if (g_ascii_strcasecmp (line, "retry-after-ms") == 0)
    {
      char *end = NULL;
      double ms = g_ascii_strtod (colon + 1, &end);

      if (end != colon + 1 && ms >= 0 && ms < 1e12)
        attempt->retry_after_ms = (gint64) ms;
    }
  else if (g_ascii_strcasecmp (line, "retry-after") == 0 && attempt->retry_after_ms < 0)
    attempt->retry_after_ms = assay_llm_http_parse_retry_after (colon + 1);

  return len;
}

static gboolean
assay_llm_http_sse_event_cb (const char  *event,
                             const char  *data,
                             gsize        data_len,
                             gpointer     user_data,
                             GError     **error)
{
  Job *job = user_data;

  return assay_llm_turn_feed_event (job->turn, event, data, data_len, error);
}

static size_t
assay_llm_http_write_cb (char   *ptr,
                         size_t  size,
                         size_t  nmemb,
                         void   *user_data)
{
  Attempt *attempt = user_data;
  Job *job = attempt->job;
  gsize len = size * nmemb;
  gsize cap;

  if (g_cancellable_is_cancelled (job->cancellable))
    return 0;

  if (!attempt->received)
    {
      attempt->received = TRUE;
      curl_easy_getinfo (attempt->easy, CURLINFO_RESPONSE_CODE, &attempt->status);
    }
  attempt->bytes_in += (gint64) len;

  if (job->streaming && attempt->status >= 200 && attempt->status < 300)
    {
      if (!assay_sse_parser_feed (job->parser, ptr, len, assay_llm_http_sse_event_cb, job,
                                  &attempt->stream_error))
        return 0;
      return len;
    }

  cap = job->streaming ? MAX_ERROR_BODY : MAX_JSON_BODY;
  if (len > cap - MIN (cap, attempt->body->len))
    {
      attempt->body_too_large = TRUE;
      return 0;
    }
  g_byte_array_append (attempt->body, (const guint8 *) ptr, len);
  return len;
}

/* Replaces the key, and any run of REDACT_WINDOW characters of it, in a server's text:
 * some servers quote part of a refused key back. */
static char *
assay_llm_http_redact (const char *text,
                       const char *secret)
{
  GString *out;
  gsize secret_len;

  if (text == NULL)
    return NULL;
  if (secret == NULL || (secret_len = strlen (secret)) < REDACT_WINDOW)
    return g_strdup (text);

  out = g_string_new (text);
  g_string_replace (out, secret, "[the key]", 0);

  for (gsize i = 0; i + REDACT_WINDOW <= out->len;)
    {
      g_autofree char *window = g_strndup (out->str + i, REDACT_WINDOW);

      if (strstr (secret, window) != NULL)
        {
          gsize end = i;

          while (end < out->len && !g_ascii_isspace (out->str[end]))
            end++;
          while (i > 0 && !g_ascii_isspace (out->str[i - 1]))
            i--;
          g_string_erase (out, i, end - i);
          g_string_insert (out, i, "[part of the key]");
          i += strlen ("[part of the key]");
        }
      else
        i++;
    }

  return g_string_free (out, FALSE);
}

/* The server's own reason from an error body: error.message, error (a string) or message,
 * in the formats of OpenAI, Anthropic, Ollama and llama.cpp; else the text itself. */
static char *
assay_llm_http_extract_server_message (const guint8 *data,
                                       gsize         len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (len == 0)
    return NULL;

  if (assay_json_parser_load_untrusted (parser, (const char *) data, len, NULL) &&
      (root = json_parser_get_root (parser)) != NULL)
    {
      JsonObject *object;
      JsonObject *error_object;
      const char *message = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (root))
        return NULL;
      object = json_node_get_object (root);
      error_object = assay_json_get_object (object, "error");
      if (error_object != NULL)
        message = assay_json_get_string (error_object, "message");
      if (message == NULL)
        message = assay_json_get_string (object, "error");
      if (message == NULL)
        message = assay_json_get_string (object, "message");
      if (message == NULL)
        message = assay_json_get_string (object, "detail");
      return message != NULL && message[0] != '\0' ? assay_llm_sanitize_message (message, -1) : NULL;
    }

  return assay_llm_sanitize_message ((const char *) data, len);
}

static void
assay_llm_http_set_http_error (Job          *job,
                               guint         status,
                               const guint8 *body,
                               gsize         body_len,
                               GError      **error)
{
  AssayLlmHttpRequest *request = job->request;
  g_autofree char *raw = assay_llm_http_extract_server_message (body, body_len);
  g_autofree char *server_message = assay_llm_http_redact (raw, request->api_key);
  g_autofree char *what = NULL;

  switch (status)
    {
    case 401:
      what = request->api_key != NULL
             ? g_strdup (_("The model server refused the API key (HTTP 401)"))
             : g_strdup (_("The model server needs an API key and none is set (HTTP 401)"));
      break;
    case 403:
      what = g_strdup (_("The model server does not allow this API key to do this (HTTP 403)"));
      break;
    case 404:
      what = request->model != NULL && job->streaming
             ? g_strdup_printf (_("The model server has no model “%s” (HTTP 404); check the model "
                                "name and the server address %s"), request->model,
                                request->base_url)
             : g_strdup_printf (_("The model server at %s does not offer this (HTTP 404); check "
                                "the server address"), request->base_url);
      break;
    case 400:
    case 413:
    case 422:
      what = g_strdup_printf (_("The model server rejected the request (HTTP %u)"), status);
      break;
    case 408:
      what = g_strdup (_("The model server timed out waiting for the request (HTTP 408)"));
      break;
    case 409:
      what = g_strdup (_("The model server reported a conflict (HTTP 409)"));
      break;
    case 429:
      what = g_strdup (_("The model server is limiting how many requests it takes (HTTP 429)"));
      break;
    case 529:
      what = g_strdup (_("The model server is overloaded (HTTP 529)"));
      break;
    default:
      what = status >= 500
             ? g_strdup_printf (_("The model server had an internal error (HTTP %u)"), status)
             : g_strdup_printf (_("The model server answered with an error (HTTP %u)"), status);
      break;
    }

  if (server_message != NULL && server_message[0] != '\0')
    g_set_error (error, ASSAY_LLM_ERROR, assay_llm_error_from_status (status), "%s: %s",
                 what, server_message);
  else
    g_set_error_literal (error, ASSAY_LLM_ERROR, assay_llm_error_from_status (status), what);
}

static gboolean
assay_llm_http_status_is_retryable (long status)
{
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

static gboolean
assay_llm_http_error_is_retryable (const GError *error)
{
  return error->domain == ASSAY_LLM_ERROR &&
         (error->code == ASSAY_LLM_ERROR_RATE_LIMITED ||
          error->code == ASSAY_LLM_ERROR_OVERLOADED ||
          error->code == ASSAY_LLM_ERROR_SERVER);
}

typedef enum
{
  OUTCOME_SUCCESS,
  OUTCOME_RETRY,
  OUTCOME_FAIL,
} Outcome;

static void
assay_llm_http_set_network_error (Job       *job,
                                  CURLcode   res,
                                  long       os_errno,
                                  gboolean   received,
                                  GError   **error)
{
  const char *server = job->request->base_url;

  switch (res)
    {
    case CURLE_COULDNT_CONNECT:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   _("Cannot reach the model server at %s: %s"), server,
                   os_errno == ECONNREFUSED ? _("connection refused")
                   : os_errno != 0 ? g_strerror ((int) os_errno) : curl_easy_strerror (res));
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   _("Cannot reach the model server at %s: the name does not resolve (no network, "
                   "or a typing error in the address?)"), server);
      break;
    case CURLE_OPERATION_TIMEDOUT:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   received ? _("The model server at %s stopped sending in the middle of its reply")
                            : _("The model server at %s does not answer"), server);
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   _("The model server address %s is not a valid http:// or https:// address"),
                   server);
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   _("The secure connection to the model server at %s failed: %s"), server,
                   curl_easy_strerror (res));
      break;
    default:
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                   _("The connection to the model server at %s was cut (%s)"), server,
                   curl_easy_strerror (res));
      break;
    }
}

static gboolean
assay_llm_http_network_error_is_retryable (CURLcode res)
{
  switch (res)
    {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return FALSE;
    default:
      return TRUE;
    }
}

static int
assay_llm_http_compare_ids (gconstpointer a,
                            gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* OpenAI's {"object": "list", "data": [{"id": ...}]}, Anthropic's {"data": [{"type": "model",
 * "id": ..., "display_name": ...}], "has_more": ..., "first_id": ..., "last_id": ...}.
 * OpenAI-compatible servers list in no useful order, so their ids are sorted; Anthropic lists
 * the newest model first, and that order is kept. Duplicates go either way. */
static GStrv
assay_llm_http_parse_models (const guint8    *data,
                             gsize            len,
                             AssayLlmFlavor   flavor,
                             GError         **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  JsonNode *root;
  JsonArray *array;

  if (!assay_json_parser_load_untrusted (parser, (const char *) data, len, NULL) ||
      (root = json_parser_get_root (parser)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      (array = assay_json_get_array (json_node_get_object (root), "data")) == NULL)
    {
      g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                           _("The model server's list of models is not in a format Assay knows"));
      return NULL;
    }

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      const char *id;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      id = assay_json_get_string (json_node_get_object (node), "id");
      if (id != NULL && id[0] != '\0' && g_utf8_validate (id, -1, NULL))
        g_ptr_array_add (ids, (gpointer) id);
    }
  if (flavor == ASSAY_LLM_FLAVOR_ANTHROPIC)
    {
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < ids->len; i++)
        if (g_hash_table_add (seen, g_ptr_array_index (ids, i)))
          g_strv_builder_add (builder, g_ptr_array_index (ids, i));
      return g_strv_builder_end (builder);
    }

  g_ptr_array_sort (ids, assay_llm_http_compare_ids);
  for (guint i = 0; i < ids->len; i++)
    if (i == 0 || g_strcmp0 (g_ptr_array_index (ids, i), g_ptr_array_index (ids, i - 1)) != 0)
      g_strv_builder_add (builder, g_ptr_array_index (ids, i));
  return g_strv_builder_end (builder);
}

static Outcome
assay_llm_http_job_attempt (Job      *job,
                            gint64   *retry_after_ms,
                            GError  **error)
{
  AssayLlmHttpRequest *request = job->request;
  struct curl_slist *headers = NULL;
  Attempt attempt = { 0 };
  CURLcode res = CURLE_OK;
  CURLMsg *message;
  long os_errno = 0;
  Outcome outcome = OUTCOME_FAIL;
  int queued;

  attempt.job = job;
  attempt.retry_after_ms = -1;
  attempt.sent_at = g_get_real_time ();
  attempt.body = g_byte_array_new ();
  *retry_after_ms = -1;

  if (job->streaming)
    {
      assay_llm_turn_reset (job->turn);
      assay_sse_parser_reset (job->parser);
    }

  attempt.easy = curl_easy_init ();
  if (attempt.easy == NULL)
    {
      g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                           _("Cannot create an HTTP connection"));
      g_byte_array_unref (attempt.body);
      return OUTCOME_FAIL;
    }

  for (guint i = 0; i < request->headers->len; i++)
    headers = curl_slist_append (headers, g_ptr_array_index (request->headers, i));
  headers = curl_slist_append (headers, "Expect:");

  curl_easy_setopt (attempt.easy, CURLOPT_URL, request->url);
  curl_easy_setopt (attempt.easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt (attempt.easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (attempt.easy, CURLOPT_USERAGENT, "Assay/" PACKAGE_VERSION);
  curl_easy_setopt (attempt.easy, CURLOPT_CONNECTTIMEOUT, (long) CONNECT_TIMEOUT_S);
  /* A server silent for this long counts as a cut connection. */
  curl_easy_setopt (attempt.easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt (attempt.easy, CURLOPT_LOW_SPEED_TIME, (long) IDLE_TIMEOUT_S);
  curl_easy_setopt (attempt.easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt (attempt.easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt (attempt.easy, CURLOPT_WRITEFUNCTION, assay_llm_http_write_cb);
  curl_easy_setopt (attempt.easy, CURLOPT_WRITEDATA, &attempt);
  curl_easy_setopt (attempt.easy, CURLOPT_HEADERFUNCTION, assay_llm_http_header_cb);
  curl_easy_setopt (attempt.easy, CURLOPT_HEADERDATA, &attempt);
  if (request->body != NULL)
    {
      gsize len = 0;
      const char *data = g_bytes_get_data (request->body, &len);

      curl_easy_setopt (attempt.easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) len);
      curl_easy_setopt (attempt.easy, CURLOPT_POSTFIELDS, data);
    }

  curl_multi_add_handle (job->multi, attempt.easy);
  for (;;)
    {
      int running = 0;

      if (curl_multi_perform (job->multi, &running) != CURLM_OK || running == 0)
        break;
      if (g_cancellable_is_cancelled (job->cancellable))
        break;
      /* Woken at once by curl_multi_wakeup() when the cancellable fires. */
      curl_multi_poll (job->multi, NULL, 0, 1000, NULL);
    }

  res = CURLE_ABORTED_BY_CALLBACK;
  while ((message = curl_multi_info_read (job->multi, &queued)) != NULL)
    if (message->msg == CURLMSG_DONE && message->easy_handle == attempt.easy)
      res = message->data.result;
  if (attempt.status == 0)
    curl_easy_getinfo (attempt.easy, CURLINFO_RESPONSE_CODE, &attempt.status);
  curl_easy_getinfo (attempt.easy, CURLINFO_OS_ERRNO, &os_errno);
  curl_multi_remove_handle (job->multi, attempt.easy);
  curl_easy_cleanup (attempt.easy);
  curl_slist_free_all (headers);

  *retry_after_ms = attempt.retry_after_ms;

  if (g_cancellable_set_error_if_cancelled (job->cancellable, error))
    outcome = OUTCOME_FAIL;
  else if (attempt.stream_error != NULL)
    {
      if (attempt.stream_error->domain != ASSAY_LLM_ERROR)
        g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                     _("The model server's reply cannot be read: %s"), attempt.stream_error->message);
      else
        g_propagate_error (error, g_steal_pointer (&attempt.stream_error));
      outcome = assay_llm_http_error_is_retryable (*error) ? OUTCOME_RETRY : OUTCOME_FAIL;
    }
  else if (attempt.body_too_large)
    {
      g_set_error_literal (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                           _("The model server sent a reply too large to read"));
      outcome = OUTCOME_FAIL;
    }
  else if (attempt.status >= 300 && (res == CURLE_OK || attempt.body->len > 0))
    {
      assay_llm_http_set_http_error (job, attempt.status, attempt.body->data, attempt.body->len, error);
      outcome = assay_llm_http_status_is_retryable (attempt.status) ? OUTCOME_RETRY : OUTCOME_FAIL;
    }
  else if (res != CURLE_OK)
    {
      assay_llm_http_set_network_error (job, res, os_errno, attempt.received, error);
      outcome = assay_llm_http_network_error_is_retryable (res) ? OUTCOME_RETRY : OUTCOME_FAIL;
    }
  else if (attempt.status < 200)
    {
      g_set_error (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL,
                   _("The model server at %s did not answer in HTTP"), request->base_url);
      outcome = OUTCOME_FAIL;
    }
  else if (job->streaming)
    {
      if (assay_llm_turn_check_complete (job->turn, error))
        {
          job->response = assay_llm_turn_to_response (job->turn);
          /* What was sent, as sent, for the session's record of requests. */
          job->response->request_body = request->body != NULL ? g_bytes_ref (request->body) : NULL;
          job->response->request_host = assay_llm_http_host_of (request->url);
          job->response->bytes_in = attempt.bytes_in;
          job->response->sent_at = attempt.sent_at;
          outcome = OUTCOME_SUCCESS;
        }
      else
        outcome = OUTCOME_RETRY;
    }
  else
    {
      job->models = assay_llm_http_parse_models (attempt.body->data,
                                                 attempt.body->len,
                                                 request->flavor,
                                                 error);
      outcome = job->models != NULL ? OUTCOME_SUCCESS : OUTCOME_FAIL;
    }

  g_clear_error (&attempt.stream_error);
  g_byte_array_unref (attempt.body);
  return outcome;
}

static void
assay_llm_http_cancelled_cb (GCancellable *cancellable,
                             gpointer      user_data)
{
  Job *job = user_data;

  curl_multi_wakeup (job->multi);
}

/* Sleeps DELAY_US or until cancelled, whichever comes first. */
static void
assay_llm_http_job_wait (Job    *job,
                         gint64  delay_us)
{
  gint64 deadline = g_get_monotonic_time () + delay_us;

  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time ();

      if (left <= 0 || g_cancellable_is_cancelled (job->cancellable))
        return;
      curl_multi_poll (job->multi, NULL, 0, (int) MIN ((left + 999) / 1000, 1000), NULL);
    }
}

static guint
assay_llm_http_backoff_ms (guint retry)
{
  guint delay = ASSAY_LLM_BACKOFF_BASE_MS;

  for (guint i = 1; i < retry && delay < ASSAY_LLM_BACKOFF_CAP_MS; i++)
    delay *= 2;
  delay = MIN (delay, ASSAY_LLM_BACKOFF_CAP_MS);
  /* Jitter keeps many clients from coming back at the same moment. */
  return delay / 2 + (guint) g_random_int_range (0, (gint32) (delay / 2) + 1);
}

static const char *
assay_llm_http_retry_reason (const GError *error)
{
  switch (error->code)
    {
    case ASSAY_LLM_ERROR_RATE_LIMITED:
      return "rate limited";
    case ASSAY_LLM_ERROR_OVERLOADED:
      return "overloaded";
    case ASSAY_LLM_ERROR_SERVER:
      return "server error";
    case ASSAY_LLM_ERROR_PROTOCOL:
      return "reply cut short";
    default:
      return "connection cut";
    }
}

G_GNUC_PRINTF (2, 3)
static void
assay_llm_http_append_to_error (GError     *error,
                                const char *format,
                                ...)
{
  g_autofree char *suffix = NULL;
  char *message;
  va_list args;

  va_start (args, format);
  suffix = g_strdup_vprintf (format, args);
  va_end (args);
  message = g_strconcat (error->message, suffix, NULL);
  g_free (error->message);
  error->message = message;
}

static void
assay_llm_http_job_run (Job *job)
{
  gulong handler;

  job->multi = curl_multi_init ();
  handler = g_cancellable_connect (job->cancellable, G_CALLBACK (assay_llm_http_cancelled_cb), job, NULL);

  for (guint attempt = 1;; attempt++)
    {
      g_autoptr(GError) error = NULL;
      gint64 retry_after_ms = -1;
      guint delay_ms;
      Outcome outcome;
      Item *item;

      outcome = assay_llm_http_job_attempt (job, &retry_after_ms, &error);
      if (outcome == OUTCOME_SUCCESS)
        {
          if (job->response != NULL)
            job->response->attempts = attempt;
          break;
        }

      if (outcome == OUTCOME_RETRY && retry_after_ms > ASSAY_LLM_MAX_RETRY_AFTER_MS)
        {
          assay_llm_http_append_to_error (error, " (it asks to wait %" G_GINT64_FORMAT " minutes before trying "
                                          "again)", (retry_after_ms + 59999) / 60000);
          outcome = OUTCOME_FAIL;
        }
      if (outcome == OUTCOME_RETRY && attempt > ASSAY_LLM_MAX_RETRIES)
        {
          assay_llm_http_append_to_error (error, " (gave up after %u attempts)", attempt);
          outcome = OUTCOME_FAIL;
        }
      if (outcome == OUTCOME_FAIL)
        {
          job->error = g_steal_pointer (&error);
          break;
        }

      delay_ms = retry_after_ms >= 0 ? (guint) retry_after_ms : assay_llm_http_backoff_ms (attempt);
      item = g_new0 (Item, 1);
      item->kind = ITEM_RETRYING;
      item->index = attempt;
      item->delay_ms = delay_ms;
      item->text = g_strdup (assay_llm_http_retry_reason (error));
      assay_llm_http_job_push (job, item);

      assay_llm_http_job_wait (job, (gint64) (delay_ms * 1000.0 * assay_llm_http_retry_scale ()));
      if (g_cancellable_is_cancelled (job->cancellable))
        {
          g_cancellable_set_error_if_cancelled (job->cancellable, &job->error);
          break;
        }
    }

  g_cancellable_disconnect (job->cancellable, handler);
  g_clear_pointer (&job->multi, curl_multi_cleanup);
}

static gpointer
assay_llm_http_job_thread (gpointer data)
{
  Job *job = data;
  Item *item = g_new0 (Item, 1);

  assay_llm_http_job_run (job);
  item->kind = ITEM_COMPLETE;
  assay_llm_http_job_push (job, item);
  assay_llm_http_job_unref (job);
  return NULL;
}

static void
assay_llm_http_job_start (AssayLlmProvider    *provider,
                          AssayLlmHttpRequest *request,
                          gboolean             streaming,
                          gpointer             source_tag,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  Job *job = g_atomic_rc_box_new0 (Job);
  g_autoptr(GError) error = NULL;
  GThread *thread;

  curl_global_init (CURL_GLOBAL_DEFAULT);

  job->task = g_task_new (provider, cancellable, callback, user_data);
  g_task_set_source_tag (job->task, source_tag);
  job->provider = g_object_ref (provider);
  job->context = g_main_context_ref_thread_default ();
  g_mutex_init (&job->mutex);
  g_queue_init (&job->items);
  job->request = request;
  job->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  job->streaming = streaming;
  if (streaming)
    {
      job->turn = assay_llm_turn_new (request->flavor, assay_llm_http_turn_emit_cb, job);
      job->parser = assay_sse_parser_new (ASSAY_SSE_DEFAULT_MAX_BYTES);
    }

  thread = g_thread_try_new ("assay-llm-http",
                             assay_llm_http_job_thread,
                             assay_llm_http_job_ref (job),
                             &error);
  if (thread == NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&job->task);

      assay_llm_http_job_unref (job);
      g_task_return_new_error (task, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NETWORK,
                               _("Cannot start a thread for the request: %s"), error->message);
      assay_llm_http_job_unref (job);
      return;
    }
  g_thread_unref (thread);
  assay_llm_http_job_unref (job);
}

void
assay_llm_http_stream_async (AssayLlmProvider    *provider,
                             AssayLlmHttpRequest *request,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  assay_llm_http_job_start (provider, request, TRUE, assay_llm_http_stream_async, cancellable, callback,
                            user_data);
}

AssayLlmResponse *
assay_llm_http_stream_finish (AssayLlmProvider  *provider,
                              GAsyncResult      *result,
                              GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
assay_llm_http_list_models_async (AssayLlmProvider    *provider,
                                  AssayLlmHttpRequest *request,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  assay_llm_http_job_start (provider, request, FALSE, assay_llm_http_list_models_async, cancellable, callback,
                            user_data);
}

GStrv
assay_llm_http_list_models_finish (AssayLlmProvider  *provider,
                                   GAsyncResult      *result,
                                   GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
