/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-E2B"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <curl/curl.h>
#include <string.h>

#include "assay-e2b-client.h"
#include "assay-json.h"
#include "assay-kernel-channel.h"

#define MAX_ERROR_MESSAGE 300
#define MAX_API_BODY (8 * 1024 * 1024)
#define CREATE_ATTEMPTS 4
#define MAX_RETRY_AFTER_S 30

struct _AssayE2bClient
{
  GObject  parent_instance;

  char    *api_key;
  char    *domain;
  char    *api_url;
  char    *sandbox_url;   /* $E2B_SANDBOX_URL: every port of every sandbox there */
  char    *template_id;
};

G_DEFINE_FINAL_TYPE (AssayE2bClient, assay_e2b_client, G_TYPE_OBJECT)

static void
assay_e2b_client_finalize (GObject *object)
{
  AssayE2bClient *self = (AssayE2bClient *) object;

  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  g_free (self->domain);
  g_free (self->api_url);
  g_free (self->sandbox_url);
  g_free (self->template_id);

  G_OBJECT_CLASS (assay_e2b_client_parent_class)->finalize (object);
}

static void
assay_e2b_client_class_init (AssayE2bClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_e2b_client_finalize;
}

static void
assay_e2b_client_init (AssayE2bClient *self)
{
}

static char *
assay_e2b_strip_slash (const char *url)
{
  char *copy = g_strdup (url);
  gsize len = strlen (copy);

  while (len > 0 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

AssayE2bClient *
assay_e2b_client_new (const char *api_key)
{
  AssayE2bClient *self = g_object_new (ASSAY_TYPE_E2B_CLIENT, NULL);

  self->api_key = api_key != NULL && api_key[0] != '\0' ? g_strdup (api_key) : NULL;
  self->domain = g_strdup ("e2b.app");
  self->api_url = g_strdup ("https://api.e2b.app");
  self->template_id = g_strdup (ASSAY_E2B_DEFAULT_TEMPLATE);
  return self;
}

AssayE2bClient *
assay_e2b_client_new_from_env (const char *api_key)
{
  return assay_e2b_client_new_full (api_key, NULL, NULL);
}

AssayE2bClient *
assay_e2b_client_new_full (const char *api_key,
                           const char *domain,
                           const char *template_id)
{
  AssayE2bClient *self = assay_e2b_client_new (api_key != NULL ? api_key : g_getenv ("E2B_API_KEY"));
  const char *value;

  if (((value = domain) != NULL && value[0] != '\0') ||
      ((value = g_getenv ("E2B_DOMAIN")) != NULL && value[0] != '\0'))
    {
      g_free (self->domain);
      self->domain = g_strdup (value);
      g_free (self->api_url);
      self->api_url = g_strdup_printf ("https://api.%s", value);
    }
  if ((value = g_getenv ("E2B_API_URL")) != NULL && value[0] != '\0')
    {
      g_free (self->api_url);
      self->api_url = assay_e2b_strip_slash (value);
    }
  if ((value = g_getenv ("E2B_SANDBOX_URL")) != NULL && value[0] != '\0')
    self->sandbox_url = assay_e2b_strip_slash (value);
  if (((value = template_id) != NULL && value[0] != '\0') ||
      ((value = g_getenv ("E2B_TEMPLATE")) != NULL && value[0] != '\0'))
    {
      g_free (self->template_id);
      self->template_id = g_strdup (value);
    }
  return self;
}

gboolean
assay_e2b_client_has_key (AssayE2bClient *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), FALSE);

  return self->api_key != NULL;
}

const char *
assay_e2b_client_get_api_url (AssayE2bClient *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), NULL);

  return self->api_url;
}

const char *
assay_e2b_client_get_template (AssayE2bClient *self)
{
  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), NULL);

  return self->template_id;
}

char *
assay_e2b_client_dup_sandbox_url (AssayE2bClient *self,
                                  const char     *sandbox_id,
                                  const char     *domain,
                                  guint           port)
{
  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), NULL);

  if (self->sandbox_url != NULL)
    return g_strdup (self->sandbox_url);
  return g_strdup_printf ("https://%u-%s.%s", port, sandbox_id,
                          domain != NULL && domain[0] != '\0' ? domain : self->domain);
}

void
assay_e2b_response_clear (AssayE2bResponse *response)
{
  g_clear_pointer (&response->body, g_bytes_unref);
  response->status = 0;
  response->retry_after = -1;
}

void
assay_e2b_sandbox_free (AssayE2bSandbox *sandbox)
{
  if (sandbox == NULL)
    return;
  g_free (sandbox->id);
  g_free (sandbox->domain);
  g_free (sandbox->access_token);
  g_free (sandbox);
}

typedef struct
{
  GByteArray        *body;
  guint64            max_bytes;
  gboolean           truncated;
  AssayE2bWriteFunc  write;
  gpointer           user_data;
  const int         *abort;
  GCancellable      *cancellable;
  gint64             retry_after;
} Transfer;

static size_t
assay_e2b_client_on_body (char   *data,
                          size_t  size,
                          size_t  count,
                          void   *user_data)
{
  Transfer *transfer = user_data;
  gsize len = size * count;

  if (transfer->write != NULL)
    return transfer->write (data, len, transfer->user_data) ? len : 0;
  if (transfer->body->len + len > transfer->max_bytes)
    {
      g_byte_array_append (transfer->body, (const guint8 *) data, transfer->max_bytes - transfer->body->len);
      transfer->truncated = TRUE;
      return 0;
    }
  g_byte_array_append (transfer->body, (const guint8 *) data, len);
  return len;
}

static size_t
assay_e2b_client_on_header (char   *data,
                            size_t  size,
                            size_t  count,
                            void   *user_data)
{
  Transfer *transfer = user_data;
  gsize len = size * count;

  if (len > 12 && g_ascii_strncasecmp (data, "Retry-After:", 12) == 0)
    {
      g_autofree char *value = g_strstrip (g_strndup (data + 12, len - 12));
      guint64 seconds;

      if (g_ascii_string_to_unsigned (value, 10, 0, 3600, &seconds, NULL))
        transfer->retry_after = (gint64) seconds;
    }
  return len;
}

static int
assay_e2b_client_on_progress (void       *user_data,
                              curl_off_t  dltotal,
                              curl_off_t  dlnow,
                              curl_off_t  ultotal,
                              curl_off_t  ulnow)
{
  Transfer *transfer = user_data;

  if (transfer->abort != NULL && g_atomic_int_get (transfer->abort))
    return 1;
  if (g_cancellable_is_cancelled (transfer->cancellable))
    return 1;
  return 0;
}

static gboolean
assay_e2b_client_perform (const char         *method,
                          const char         *url,
                          struct curl_slist  *headers,
                          GBytes             *body,
                          guint               timeout_s,
                          guint64             max_bytes,
                          AssayE2bWriteFunc   write,
                          gpointer            user_data,
                          const int          *abort,
                          GCancellable       *cancellable,
                          AssayE2bResponse   *response,
                          gboolean           *truncated,
                          GError            **error)
{
  g_autoptr(GByteArray) received = g_byte_array_new ();
  Transfer transfer = { received, max_bytes, FALSE, write, user_data, abort, cancellable, -1 };
  char curl_error[CURL_ERROR_SIZE] = "";
  CURL *curl = curl_easy_init ();
  CURLcode code;
  long status = 0;

  response->status = 0;
  response->body = NULL;
  response->retry_after = -1;
  if (curl == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "curl_easy_init failed");
      return FALSE;
    }
  curl_easy_setopt (curl, CURLOPT_URL, url);
  curl_easy_setopt (curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt (curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt (curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt (curl, CURLOPT_CONNECTTIMEOUT, 15L);
  curl_easy_setopt (curl, CURLOPT_TIMEOUT, (long) timeout_s);
  curl_easy_setopt (curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt (curl, CURLOPT_ERRORBUFFER, curl_error);
  curl_easy_setopt (curl, CURLOPT_WRITEFUNCTION, assay_e2b_client_on_body);
  curl_easy_setopt (curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt (curl, CURLOPT_HEADERFUNCTION, assay_e2b_client_on_header);
  curl_easy_setopt (curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt (curl, CURLOPT_XFERINFOFUNCTION, assay_e2b_client_on_progress);
  curl_easy_setopt (curl, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt (curl, CURLOPT_NOPROGRESS, 0L);
  if (body != NULL)
    {
      gsize len;
      const char *data = g_bytes_get_data (body, &len);

      curl_easy_setopt (curl, CURLOPT_POSTFIELDS, data != NULL ? data : "");
      curl_easy_setopt (curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) len);
    }
  else if (g_str_equal (method, "GET"))
    curl_easy_setopt (curl, CURLOPT_HTTPGET, 1L);

  code = curl_easy_perform (curl);
  curl_easy_getinfo (curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup (curl);

  if (code == CURLE_WRITE_ERROR && transfer.truncated)
    code = CURLE_OK;
  if (truncated != NULL)
    *truncated = transfer.truncated;
  if (code == CURLE_ABORTED_BY_CALLBACK || (code == CURLE_WRITE_ERROR && abort != NULL && g_atomic_int_get (abort)))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("stopped"));
      return FALSE;
    }
  if (code != CURLE_OK && status == 0)
    {
      g_set_error (error, G_IO_ERROR, code == CURLE_OPERATION_TIMEDOUT ? G_IO_ERROR_TIMED_OUT : G_IO_ERROR_FAILED,
                   _("E2B cannot be reached: %s"), curl_error[0] ? curl_error : curl_easy_strerror (code));
      return FALSE;
    }
  if (code != CURLE_OK)
    {
      /* An answer began and then broke off: a cut stream. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                   _("the connection to E2B broke off: %s"), curl_error[0] ? curl_error : curl_easy_strerror (code));
      response->status = (guint) status;
      return FALSE;
    }
  response->status = (guint) status;
  response->retry_after = transfer.retry_after;
  response->body = g_byte_array_free_to_bytes (g_steal_pointer (&received));
  return TRUE;
}

gboolean
assay_e2b_client_api_request (AssayE2bClient    *self,
                              const char        *method,
                              const char        *path,
                              const char        *body,
                              AssayE2bResponse  *response,
                              GCancellable      *cancellable,
                              GError           **error)
{
  g_autofree char *url = NULL;
  g_autofree char *key_header = NULL;
  g_autoptr(GBytes) bytes = NULL;
  struct curl_slist *headers = NULL;
  gboolean ok;

  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), FALSE);

  if (self->api_key == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                           _("no E2B key: set E2B_API_KEY in the environment"));
      return FALSE;
    }
  url = g_strconcat (self->api_url, path, NULL);
  key_header = g_strconcat ("X-API-Key: ", self->api_key, NULL);
  headers = curl_slist_append (headers, key_header);
  headers = curl_slist_append (headers, "Accept: application/json");
  if (body != NULL)
    {
      headers = curl_slist_append (headers, "Content-Type: application/json");
      bytes = g_bytes_new (body, strlen (body));
    }
  else if (!g_str_equal (method, "GET") && !g_str_equal (method, "DELETE"))
    bytes = g_bytes_new_static ("", 0);
  ok = assay_e2b_client_perform (method, url, headers, bytes, 60, MAX_API_BODY, NULL, NULL, NULL,
                                 cancellable, response, NULL, error);
  curl_slist_free_all (headers);
  memset (key_header, 0, strlen (key_header));
  return ok;
}

char *
assay_e2b_describe_error (const AssayE2bResponse *response)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *message = NULL;
  gsize len = 0;
  const char *data = response->body != NULL ? g_bytes_get_data (response->body, &len) : NULL;

  if (data != NULL && len > 0 && assay_json_parser_load_untrusted (parser, data, len, NULL) &&
      JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    message = g_strdup (assay_json_get_string (json_node_get_object (json_parser_get_root (parser)), "message"));
  else if (data != NULL && len > 0)
    message = g_strndup (data, MIN (len, MAX_ERROR_MESSAGE));
  if (message != NULL)
    {
      g_autofree char *clean = assay_sanitize_text (message, MIN (strlen (message), MAX_ERROR_MESSAGE));

      g_strstrip (clean);
      if (clean[0] != '\0')
        return g_strdup_printf (_("E2B answered %u: %s"), response->status, clean);
    }
  return g_strdup_printf (_("E2B answered %u"), response->status);
}

static JsonObject *
assay_e2b_response_get_object (const AssayE2bResponse *response,
                               JsonParser             *parser)
{
  gsize len = 0;
  const char *data = response->body != NULL ? g_bytes_get_data (response->body, &len) : NULL;

  if (data == NULL || !assay_json_parser_load_untrusted (parser, data, len, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return NULL;
  return json_node_get_object (json_parser_get_root (parser));
}

static void
assay_e2b_set_status_error (GError                 **error,
                            const AssayE2bResponse  *response,
                            const char              *what)
{
  g_autofree char *described = assay_e2b_describe_error (response);
  GIOErrorEnum code = G_IO_ERROR_FAILED;

  if (response->status == 401 || response->status == 403)
    code = G_IO_ERROR_PERMISSION_DENIED;
  else if (response->status == 404)
    code = G_IO_ERROR_NOT_FOUND;
  else if (response->status == 429)
    code = G_IO_ERROR_BUSY;
  if (response->status == 401)
    g_set_error (error, G_IO_ERROR, code, _("%s: the E2B key was refused (%s)"), what, described);
  else
    g_set_error (error, G_IO_ERROR, code, "%s: %s", what, described);
}

AssayE2bSandbox *
assay_e2b_client_create_sandbox (AssayE2bClient  *self,
                                 guint            timeout_s,
                                 JsonObject      *metadata,
                                 GCancellable    *cancellable,
                                 GError         **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *body = NULL;

  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "templateID");
  json_builder_add_string_value (builder, self->template_id);
  json_builder_set_member_name (builder, "timeout");
  json_builder_add_int_value (builder, timeout_s);
  json_builder_set_member_name (builder, "autoPause");
  json_builder_add_boolean_value (builder, FALSE);
  if (metadata != NULL)
    {
      json_builder_set_member_name (builder, "metadata");
      json_builder_add_value (builder, json_node_init_object (json_node_alloc (), metadata));
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  body = json_to_string (root, FALSE);

  for (guint attempt = 1;; attempt++)
    {
      g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *object;
      AssayE2bSandbox *sandbox;
      const char *id;

      if (!assay_e2b_client_api_request (self, "POST", "/sandboxes", body, &response, cancellable, error))
        return NULL;
      if (response.status == 429 && attempt < CREATE_ATTEMPTS)
        {
          gint64 wait_s = response.retry_after >= 0 ? MIN (response.retry_after, MAX_RETRY_AFTER_S) : 2 * attempt;

          g_debug ("E2B is rate limiting sandbox creation; trying again in %" G_GINT64_FORMAT " s", wait_s);
          for (gint64 waited = 0; waited < wait_s * 10; waited++)
            {
              if (g_cancellable_set_error_if_cancelled (cancellable, error))
                return NULL;
              g_usleep (G_USEC_PER_SEC / 10);
            }
          continue;
        }
      if (response.status == 429)
        {
          g_autofree char *described = assay_e2b_describe_error (&response);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                       _("E2B refused to start a sandbox %u times in a row because of its rate limit (%s); "
                         "try again later"), attempt, described);
          return NULL;
        }
      if (response.status != 200 && response.status != 201)
        {
          assay_e2b_set_status_error (error, &response, _("E2B could not start a sandbox"));
          return NULL;
        }
      object = assay_e2b_response_get_object (&response, parser);
      id = assay_json_get_string (object, "sandboxID");
      if (!assay_e2b_sandbox_id_is_valid (id))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("E2B answered the sandbox's creation without a valid sandboxID"));
          return NULL;
        }
      sandbox = g_new0 (AssayE2bSandbox, 1);
      sandbox->id = g_strdup (id);
      sandbox->domain = assay_json_dup_string (object, "domain");
      sandbox->access_token = assay_json_dup_string (object, "envdAccessToken");
      return sandbox;
    }
}

gboolean
assay_e2b_sandbox_id_is_valid (const char *id)
{
  if (id == NULL || id[0] == '\0' || strlen (id) > 128)
    return FALSE;
  for (const char *c = id; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && *c != '-' && *c != '_')
      return FALSE;
  return TRUE;
}

static char *
assay_e2b_sandbox_path (const char *sandbox_id,
                        const char *action)
{
  g_autofree char *escaped = g_uri_escape_string (sandbox_id, NULL, FALSE);

  return action != NULL ? g_strdup_printf ("/sandboxes/%s/%s", escaped, action)
                        : g_strdup_printf ("/sandboxes/%s", escaped);
}

gboolean
assay_e2b_client_kill_sandbox (AssayE2bClient  *self,
                               const char      *sandbox_id,
                               GError         **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autofree char *path = assay_e2b_sandbox_path (sandbox_id, NULL);

  if (!assay_e2b_client_api_request (self, "DELETE", path, NULL, &response, NULL, error))
    return FALSE;
  if (response.status == 204 || response.status == 200 || response.status == 404)
    return TRUE;
  assay_e2b_set_status_error (error, &response, _("E2B could not end the sandbox"));
  return FALSE;
}

static gboolean
assay_e2b_client_post_timeout (AssayE2bClient  *self,
                               const char      *sandbox_id,
                               const char      *action,
                               guint            timeout_s,
                               const char      *what,
                               GError         **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autofree char *path = assay_e2b_sandbox_path (sandbox_id, action);
  g_autofree char *body = timeout_s > 0 ? g_strdup_printf ("{\"timeout\":%u}", timeout_s) : NULL;

  if (!assay_e2b_client_api_request (self, "POST", path, body, &response, NULL, error))
    return FALSE;
  if (response.status >= 200 && response.status < 300)
    return TRUE;
  assay_e2b_set_status_error (error, &response, what);
  return FALSE;
}

gboolean
assay_e2b_client_set_timeout (AssayE2bClient  *self,
                              const char      *sandbox_id,
                              guint            timeout_s,
                              GError         **error)
{
  return assay_e2b_client_post_timeout (self, sandbox_id, "timeout", MAX (timeout_s, 1),
                                        _("E2B could not extend the sandbox's time"), error);
}

gboolean
assay_e2b_client_pause_sandbox (AssayE2bClient  *self,
                                const char      *sandbox_id,
                                GError         **error)
{
  return assay_e2b_client_post_timeout (self, sandbox_id, "pause", 0, _("E2B could not pause the sandbox"), error);
}

AssayE2bSandbox *
assay_e2b_client_resume_sandbox (AssayE2bClient  *self,
                                 const char      *sandbox_id,
                                 guint            timeout_s,
                                 GError         **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *path = NULL;
  g_autofree char *body = g_strdup_printf ("{\"timeout\":%u}", MAX (timeout_s, 1));
  AssayE2bSandbox *sandbox;
  JsonObject *object;
  const char *id;

  g_return_val_if_fail (ASSAY_IS_E2B_CLIENT (self), NULL);

  if (!assay_e2b_sandbox_id_is_valid (sandbox_id))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("the recorded E2B sandbox id is not valid"));
      return NULL;
    }
  path = assay_e2b_sandbox_path (sandbox_id, "connect");
  if (!assay_e2b_client_api_request (self, "POST", path, body, &response, NULL, error))
    return NULL;
  if (response.status == 404)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("E2B no longer has the sandbox %s (it expired or was ended)"), sandbox_id);
      return NULL;
    }
  if (response.status != 200 && response.status != 201)
    {
      assay_e2b_set_status_error (error, &response, _("E2B could not resume the sandbox"));
      return NULL;
    }
  /* The answer is the sandbox as at its creation: its id, domain and envd token. */
  object = assay_e2b_response_get_object (&response, parser);
  id = assay_json_get_string (object, "sandboxID");
  if (id != NULL && !g_str_equal (id, sandbox_id))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("E2B answered the resume with another sandbox"));
      return NULL;
    }
  sandbox = g_new0 (AssayE2bSandbox, 1);
  sandbox->id = g_strdup (sandbox_id);
  sandbox->domain = assay_json_dup_string (object, "domain");
  sandbox->access_token = assay_json_dup_string (object, "envdAccessToken");
  return sandbox;
}

gboolean
assay_e2b_client_sandbox_exists (AssayE2bClient  *self,
                                 const char      *sandbox_id,
                                 GError         **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autofree char *path = assay_e2b_sandbox_path (sandbox_id, NULL);

  if (!assay_e2b_client_api_request (self, "GET", path, NULL, &response, NULL, error))
    return FALSE;
  if (response.status == 200)
    return TRUE;
  assay_e2b_set_status_error (error, &response, _("E2B does not know the sandbox"));
  return FALSE;
}

gboolean
assay_e2b_client_sandbox_request (AssayE2bClient         *self,
                                  const AssayE2bSandbox  *sandbox,
                                  guint                   port,
                                  const char             *method,
                                  const char             *path,
                                  const char             *content_type,
                                  GBytes                 *body,
                                  guint                   timeout_s,
                                  AssayE2bWriteFunc       write,
                                  gpointer                user_data,
                                  const int              *abort,
                                  AssayE2bResponse       *response,
                                  GError                **error)
{
  g_autofree char *base = assay_e2b_client_dup_sandbox_url (self, sandbox->id, sandbox->domain, port);
  g_autofree char *url = g_strconcat (base, path, NULL);
  g_autofree char *id_header = g_strconcat ("E2b-Sandbox-Id: ", sandbox->id, NULL);
  g_autofree char *port_header = g_strdup_printf ("E2b-Sandbox-Port: %u", port);
  g_autofree char *token_header = NULL;
  g_autofree char *type_header = NULL;
  struct curl_slist *headers = NULL;
  gboolean ok;

  headers = curl_slist_append (headers, id_header);
  headers = curl_slist_append (headers, port_header);
  if (sandbox->access_token != NULL)
    {
      token_header = g_strconcat ("X-Access-Token: ", sandbox->access_token, NULL);
      headers = curl_slist_append (headers, token_header);
    }
  if (content_type != NULL)
    {
      type_header = g_strconcat ("Content-Type: ", content_type, NULL);
      headers = curl_slist_append (headers, type_header);
    }
  /* envd's RPCs are Connect's unary protocol in its JSON form. */
  if (g_str_has_prefix (path, "/filesystem."))
    headers = curl_slist_append (headers, "Connect-Protocol-Version: 1");
  /* No Expect round trip before a body. */
  headers = curl_slist_append (headers, "Expect:");
  ok = assay_e2b_client_perform (method, url, headers, body, timeout_s, MAX_API_BODY, write, user_data, abort,
                                 NULL, response, NULL, error);
  curl_slist_free_all (headers);
  return ok;
}

gboolean
assay_e2b_client_upload (AssayE2bClient         *self,
                         const AssayE2bSandbox  *sandbox,
                         const char             *path,
                         GBytes                 *data,
                         GError                **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);
  g_autofree char *query = g_strdup_printf ("/files?path=%s&username=root", escaped);

  if (!assay_e2b_client_sandbox_request (self, sandbox, ASSAY_E2B_ENVD_PORT, "POST", query,
                                         "application/octet-stream", data, 0, NULL, NULL, NULL, &response, error))
    return FALSE;
  if (response.status >= 200 && response.status < 300)
    return TRUE;
  assay_e2b_set_status_error (error, &response, _("E2B could not take the file"));
  return FALSE;
}

GBytes *
assay_e2b_client_download (AssayE2bClient         *self,
                           const AssayE2bSandbox  *sandbox,
                           const char             *path,
                           guint64                 max_bytes,
                           gboolean               *truncated,
                           GError                **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);
  g_autofree char *query = g_strdup_printf ("/files?path=%s&username=user", escaped);
  g_autofree char *base = assay_e2b_client_dup_sandbox_url (self, sandbox->id, sandbox->domain, ASSAY_E2B_ENVD_PORT);
  g_autofree char *url = g_strconcat (base, query, NULL);
  g_autofree char *id_header = g_strconcat ("E2b-Sandbox-Id: ", sandbox->id, NULL);
  g_autofree char *token_header = NULL;
  struct curl_slist *headers = NULL;
  gboolean ok;

  headers = curl_slist_append (headers, id_header);
  headers = curl_slist_append (headers, "E2b-Sandbox-Port: " G_STRINGIFY (ASSAY_E2B_ENVD_PORT));
  if (sandbox->access_token != NULL)
    {
      token_header = g_strconcat ("X-Access-Token: ", sandbox->access_token, NULL);
      headers = curl_slist_append (headers, token_header);
    }
  ok = assay_e2b_client_perform ("GET", url, headers, NULL, 0, max_bytes, NULL, NULL, NULL, NULL,
                                 &response, truncated, error);
  curl_slist_free_all (headers);
  if (!ok)
    return NULL;
  if (response.status != 200)
    {
      assay_e2b_set_status_error (error, &response, _("E2B could not send the file"));
      return NULL;
    }
  return g_bytes_ref (response.body);
}

JsonArray *
assay_e2b_client_list_dir (AssayE2bClient        *self,
                           const AssayE2bSandbox *sandbox,
                           const char            *path,
                           guint                  depth,
                           GError               **error)
{
  g_auto(AssayE2bResponse) response = { 0, NULL, -1 };
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *body = NULL;
  g_autoptr(GBytes) bytes = NULL;
  JsonObject *object;
  JsonArray *entries;
  gsize len;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  json_builder_set_member_name (builder, "depth");
  json_builder_add_int_value (builder, depth);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  body = json_to_string (root, FALSE);
  len = strlen (body);
  bytes = g_bytes_new_take (g_steal_pointer (&body), len);

  if (!assay_e2b_client_sandbox_request (self, sandbox, ASSAY_E2B_ENVD_PORT, "POST",
                                         "/filesystem.Filesystem/ListDir", "application/json", bytes, 60,
                                         NULL, NULL, NULL, &response, error))
    return NULL;
  if (response.status != 200)
    {
      assay_e2b_set_status_error (error, &response, _("E2B could not list the workspace"));
      return NULL;
    }
  object = assay_e2b_response_get_object (&response, parser);
  if (object == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("E2B listed the workspace in a form it does not document"));
      return NULL;
    }
  entries = assay_json_get_array (object, "entries");
  return entries != NULL ? json_array_ref (entries) : json_array_new ();
}
