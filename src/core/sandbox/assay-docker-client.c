/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "assay-docker-client.h"
#include "assay-docker-endpoint.h"
#include "assay-docker-tunnel.h"
#include "assay-json.h"

#define API_PREFIX             "/v1.41"
#define DEFAULT_SOCKET_PATH    "/var/run/docker.sock"
#define MAX_RESPONSE_BYTES     (16 * 1024 * 1024)
#define MAX_PROGRESS_LINE      (1024 * 1024)
#define MAX_ATTACH_HEADER      (16 * 1024)
#define MAX_ATTACH_ERROR_BODY  (64 * 1024)
#define MAX_ERROR_MESSAGE      1024
#define CONNECT_TIMEOUT_S      10
#define PING_TIMEOUT_S         10
#define ATTACH_HANDSHAKE_S     30
#define PROGRESS_STEP_BYTES    (1024 * 1024)

struct _AssayDockerClient
{
  GObject  parent_instance;

  char    *requested_socket_path;
  /* NULL when DOCKER_HOST names something Assay cannot reach */
  char    *socket_path;
  char    *host_error;
  /* DOCKER_HOST of an engine elsewhere (ssh://, tcp://), reached through the tunnel's socket
   * (assay-docker-tunnel.h); what messages name. NULL on a unix socket. */
  char    *remote_host;

  /* What identify learnt; written once under the mutex, then only read. */
  GMutex             engine_mutex;
  gboolean           identified;
  AssayDockerEngine  engine;
  char              *engine_version;
  gboolean           rootless;
  char              *cgroup_version;
  char             **cgroup_controllers;
};

enum {
  PROP_0,
  PROP_SOCKET_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_TYPE (AssayDockerClient, assay_docker_client, G_TYPE_OBJECT)

G_DEFINE_QUARK (assay-docker-error-quark, assay_docker_error)

gboolean
assay_docker_error_is_stopping_race (const GError *error)
{
  return g_error_matches (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED) &&
         (strstr (error->message, "state improper") != NULL || strstr (error->message, "is not running") != NULL);
}

/* State of one HTTP exchange, owned by the calling thread. */
typedef struct
{
  GCancellable      *cancellable;

  GByteArray        *body;
  gboolean           body_too_large;

  /* Progress streams (image import) are parsed line by line instead of kept. */
  gboolean           line_mode;
  GByteArray        *line;
  char              *stream_error;
  char              *last_message;

  GInputStream      *upload;
  GError            *upload_error;
  guint64            sent;
  guint64            total;
  guint64            last_reported;
  AssayProgressFunc  progress;
  gpointer           progress_data;
} Transfer;

static void
assay_docker_client_transfer_init (Transfer     *transfer,
                                   GCancellable *cancellable)
{
  memset (transfer, 0, sizeof *transfer);
  transfer->cancellable = cancellable;
  transfer->body = g_byte_array_new ();
  transfer->line = g_byte_array_new ();
}

static void
assay_docker_client_transfer_clear (Transfer *transfer)
{
  g_clear_pointer (&transfer->body, g_byte_array_unref);
  g_clear_pointer (&transfer->line, g_byte_array_unref);
  g_clear_pointer (&transfer->stream_error, g_free);
  g_clear_pointer (&transfer->last_message, g_free);
  g_clear_error (&transfer->upload_error);
}

/* Text from the daemon goes into error messages: valid UTF-8, bounded, trimmed. */
static char *
assay_docker_client_sanitize_message (const char *text,
                                      gssize      len)
{
  g_autofree char *valid = NULL;

  if (len < 0)
    len = strlen (text);
  len = MIN (len, MAX_ERROR_MESSAGE);
  valid = g_utf8_make_valid (text, len);
  return g_strstrip (g_steal_pointer (&valid));
}

/* The daemon's `message` from an error body, or the body itself when it is
 * not JSON. NULL when there is nothing useful. */
static char *
assay_docker_client_extract_error_message (const guint8 *data,
                                           gsize         len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (len == 0)
    return NULL;

  if (assay_json_parser_load_untrusted (parser, (const char *) data, len, NULL))
    {
      JsonNode *root = json_parser_get_root (parser);
      const char *message;

      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
          (message = assay_json_get_string (json_node_get_object (root), "message")) != NULL &&
          message[0] != '\0')
        return assay_docker_client_sanitize_message (message, -1);

      return NULL;
    }

  return assay_docker_client_sanitize_message ((const char *) data, len);
}

static void
assay_docker_client_set_http_error (GError     **error,
                                    guint        status,
                                    const char  *message)
{
  int code;

  switch (status)
    {
    case 401:
    case 403:
      code = ASSAY_DOCKER_ERROR_PERMISSION_DENIED;
      break;

    case 404:
      code = ASSAY_DOCKER_ERROR_NOT_FOUND;
      break;

    case 409:
      code = ASSAY_DOCKER_ERROR_CONFLICT;
      break;

    default:
      code = ASSAY_DOCKER_ERROR_FAILED;
      break;
    }

  if (message != NULL && message[0] != '\0')
    g_set_error_literal (error, ASSAY_DOCKER_ERROR, code, message);
  else
    g_set_error (error, ASSAY_DOCKER_ERROR, code,
                 "The Docker daemon answered with HTTP status %u", status);
}

static void
assay_docker_client_transfer_handle_line (Transfer     *transfer,
                                          const guint8 *data,
                                          gsize         len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;
  JsonNode *root;
  JsonNode *detail;
  const char *text;

  while (len > 0 && g_ascii_isspace (data[len - 1]))
    len--;
  if (len == 0)
    return;

  if (!assay_json_parser_load_untrusted (parser, (const char *) data, len, NULL) ||
      (root = json_parser_get_root (parser)) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (root))
    return;

  object = json_node_get_object (root);

  if ((text = assay_json_get_string (object, "message")) != NULL)
    {
      g_free (transfer->last_message);
      transfer->last_message = assay_docker_client_sanitize_message (text, -1);
    }

  if (transfer->stream_error != NULL)
    return;

  if ((text = assay_json_get_string (object, "error")) != NULL)
    transfer->stream_error = assay_docker_client_sanitize_message (text, -1);
  else if ((detail = json_object_get_member (object, "errorDetail")) != NULL &&
           JSON_NODE_HOLDS_OBJECT (detail))
    {
      text = assay_json_get_string (json_node_get_object (detail), "message");
      transfer->stream_error = assay_docker_client_sanitize_message (text != NULL ? text : "unknown error",
                                                                     -1);
    }
}

static size_t
assay_docker_client_curl_write_cb (char   *ptr,
                                   size_t  size,
                                   size_t  nmemb,
                                   void   *user_data)
{
  Transfer *transfer = user_data;
  gsize len = size * nmemb;
  const guint8 *data = (const guint8 *) ptr;
  gsize rest = len;

  if (!transfer->line_mode)
    {
      if (len > MAX_RESPONSE_BYTES - transfer->body->len)
        {
          transfer->body_too_large = TRUE;
          return 0;
        }

      g_byte_array_append (transfer->body, data, len);
      return len;
    }

  while (rest > 0)
    {
      const guint8 *newline = memchr (data, '\n', rest);
      gsize piece = newline != NULL ? (gsize) (newline - data) + 1 : rest;

      if (piece > MAX_PROGRESS_LINE - transfer->line->len)
        {
          transfer->body_too_large = TRUE;
          return 0;
        }

      g_byte_array_append (transfer->line, data, piece);
      if (newline != NULL)
        {
          assay_docker_client_transfer_handle_line (transfer, transfer->line->data, transfer->line->len);
          g_byte_array_set_size (transfer->line, 0);
        }

      data += piece;
      rest -= piece;
    }

  return len;
}

static int
assay_docker_client_curl_xferinfo_cb (void       *user_data,
                                      curl_off_t  dltotal,
                                      curl_off_t  dlnow,
                                      curl_off_t  ultotal,
                                      curl_off_t  ulnow)
{
  Transfer *transfer = user_data;

  /* Non-zero aborts the transfer with CURLE_ABORTED_BY_CALLBACK. */
  return g_cancellable_is_cancelled (transfer->cancellable) ? 1 : 0;
}

static void
assay_docker_client_transfer_report (Transfer   *transfer,
                                     double      fraction,
                                     const char *message)
{
  if (transfer->progress != NULL)
    transfer->progress (fraction, message, transfer->progress_data);
}

static size_t
assay_docker_client_curl_read_cb (char   *buffer,
                                  size_t  size,
                                  size_t  nitems,
                                  void   *user_data)
{
  Transfer *transfer = user_data;
  gssize n;

  n = g_input_stream_read (transfer->upload, buffer, size * nitems,
                           transfer->cancellable, &transfer->upload_error);
  if (n < 0)
    return CURL_READFUNC_ABORT;

  transfer->sent += n;

  if (n == 0)
    assay_docker_client_transfer_report (transfer, -1, "Docker is unpacking the image");
  else if (transfer->sent - transfer->last_reported >= PROGRESS_STEP_BYTES ||
           transfer->last_reported == 0)
    {
      double fraction = -1;

      /* Kept below 1: the daemon still has to unpack what it got. */
      if (transfer->total > 0)
        fraction = MIN (0.99, (double) transfer->sent / (double) transfer->total);

      transfer->last_reported = transfer->sent;
      assay_docker_client_transfer_report (transfer, fraction, "Sending the image to Docker");
    }

  return n;
}

/* How the address the user named is shown: "DOCKER_HOST=tcp://…" or "the docker context
 * “build” (tcp://…)". */
static char *
assay_docker_client_name_host (const AssayDockerEndpoint *endpoint)
{
  g_autofree char *shown = assay_docker_client_sanitize_message (endpoint->host != NULL ? endpoint->host : "", -1);

  if (endpoint->context == NULL)
    return g_strdup_printf ("DOCKER_HOST=%s", shown);
  return g_strdup_printf (_("the docker context “%s” (%s)"), endpoint->context, shown);
}

/* Why the engine named cannot be used, in words: Assay speaks to the engine on a unix socket
 * or through a tunnel it checks, and never sends the API (root on that host) in clear over a
 * network. */
static char *
assay_docker_client_describe_unusable_host (const AssayDockerEndpoint *endpoint)
{
  const char *docker_host = endpoint->host;
  g_autofree char *named = assay_docker_client_name_host (endpoint);
  g_autofree char *why_not = NULL;

  if (g_str_equal (docker_host, "unix://"))
    return g_strdup_printf (_("%s names no socket (use unix:///path/to/docker.sock)"), named);
  if (g_str_has_prefix (docker_host, "tcp://") && !assay_docker_tunnel_supports (docker_host, &why_not))
    return g_strdup_printf (_("%s is refused: %s"), named, why_not);
  assay_docker_tunnel_supports (docker_host, &why_not);
  return g_strdup_printf (_("%s is not an address Assay knows: %s"), named,
                          why_not != NULL ? why_not : "");
}

gboolean
assay_docker_host_is_set (void)
{
  g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();

  return endpoint != NULL;
}

static void
assay_docker_client_resolve_socket (AssayDockerClient *self)
{
  g_autoptr(AssayDockerEndpoint) endpoint = NULL;
  const char *docker_host;

  if (self->requested_socket_path != NULL && self->requested_socket_path[0] != '\0')
    {
      self->socket_path = g_strdup (self->requested_socket_path);
      return;
    }

  endpoint = assay_docker_endpoint_resolve ();
  docker_host = endpoint != NULL ? endpoint->host : NULL;

  if (endpoint == NULL)
    self->socket_path = g_strdup (DEFAULT_SOCKET_PATH);
  else if (docker_host == NULL)
    self->host_error = assay_docker_client_sanitize_message (endpoint->error, -1);
  else if (g_str_has_prefix (docker_host, "unix://") && docker_host[strlen ("unix://")] != '\0')
    self->socket_path = g_strdup (docker_host + strlen ("unix://"));
  else if (assay_docker_tunnel_supports (docker_host, NULL))
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *named = assay_docker_client_name_host (endpoint);

      self->socket_path = assay_docker_tunnel_get_socket (docker_host, &error);
      if (self->socket_path != NULL)
        self->remote_host = g_strdup (docker_host);
      else
        self->host_error = g_strdup_printf (_("%s cannot be used: %s"), named, error->message);
    }
  else
    self->host_error = assay_docker_client_describe_unusable_host (endpoint);
}

static gboolean
assay_docker_client_check_usable (AssayDockerClient  *self,
                                  GCancellable       *cancellable,
                                  GError            **error)
{
  if (self->socket_path == NULL)
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_UNREACHABLE,
                           self->host_error);
      return FALSE;
    }

  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

static CURL *
assay_docker_client_create_handle (AssayDockerClient *self,
                                   const char        *url_path,
                                   Transfer          *transfer)
{
  g_autofree char *url = g_strconcat ("http://localhost" API_PREFIX, url_path, NULL);
  CURL *curl = curl_easy_init ();

  if (curl == NULL)
    return NULL;

  curl_easy_setopt (curl, CURLOPT_URL, url);
  curl_easy_setopt (curl, CURLOPT_UNIX_SOCKET_PATH, self->socket_path);
  curl_easy_setopt (curl, CURLOPT_PROTOCOLS_STR, "http");
  curl_easy_setopt (curl, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt (curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (curl, CURLOPT_USERAGENT, "Assay/" PACKAGE_VERSION);
  curl_easy_setopt (curl, CURLOPT_CONNECTTIMEOUT, (long) CONNECT_TIMEOUT_S);
  curl_easy_setopt (curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt (curl, CURLOPT_XFERINFOFUNCTION, assay_docker_client_curl_xferinfo_cb);
  curl_easy_setopt (curl, CURLOPT_XFERINFODATA, transfer);
  curl_easy_setopt (curl, CURLOPT_WRITEFUNCTION, assay_docker_client_curl_write_cb);
  curl_easy_setopt (curl, CURLOPT_WRITEDATA, transfer);

  return curl;
}

/* Runs the transfer; on success *status is the HTTP status (any value). */
static gboolean
assay_docker_client_perform (AssayDockerClient  *self,
                             CURL               *curl,
                             Transfer           *transfer,
                             guint              *status,
                             GError            **error)
{
  CURLcode res;
  long response_code = 0;
  long os_errno = 0;

  res = curl_easy_perform (curl);
  curl_easy_getinfo (curl, CURLINFO_RESPONSE_CODE, &response_code);
  *status = (guint) response_code;

  if (res == CURLE_OK)
    return TRUE;

  if (g_cancellable_set_error_if_cancelled (transfer->cancellable, error))
    return FALSE;

  if (transfer->upload_error != NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&transfer->upload_error),
                                  "Cannot read the data to send to Docker: ");
      return FALSE;
    }

  if (transfer->body_too_large)
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   "The Docker daemon sent a response larger than %d MiB",
                   MAX_RESPONSE_BYTES / (1024 * 1024));
      return FALSE;
    }

  /* An engine elsewhere: the tunnel knows why (ssh's last words, the TLS error). */
  if (self->remote_host != NULL)
    {
      g_autofree char *why = assay_docker_tunnel_last_error (self->remote_host);
      g_autofree char *shown = assay_docker_client_sanitize_message (self->remote_host, -1);

      g_set_error (error, ASSAY_DOCKER_ERROR,
                   response_code == 0 ? ASSAY_DOCKER_ERROR_UNREACHABLE : ASSAY_DOCKER_ERROR_FAILED,
                   "Cannot reach the Docker engine at %s: %s", shown,
                   why != NULL ? why : curl_easy_strerror (res));
      return FALSE;
    }

  switch (res)
    {
    case CURLE_COULDNT_CONNECT:
      curl_easy_getinfo (curl, CURLINFO_OS_ERRNO, &os_errno);
      if (os_errno == EACCES || os_errno == EPERM)
        g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_PERMISSION_DENIED,
                     "No permission to use the Docker socket %s", self->socket_path);
      else
        g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_UNREACHABLE,
                     "Cannot connect to the Docker daemon at %s: %s", self->socket_path,
                     os_errno != 0 ? g_strerror ((int) os_errno) : curl_easy_strerror (res));
      break;

    case CURLE_OPERATION_TIMEDOUT:
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_UNREACHABLE,
                   "The Docker daemon at %s does not answer", self->socket_path);
      break;

    default:
      g_set_error (error, ASSAY_DOCKER_ERROR,
                   response_code == 0 ? ASSAY_DOCKER_ERROR_UNREACHABLE : ASSAY_DOCKER_ERROR_FAILED,
                   "Talking to the Docker daemon at %s failed: %s", self->socket_path,
                   curl_easy_strerror (res));
      break;
    }

  return FALSE;
}

/* One request with an optional in-memory body; fills transfer->body. */
static gboolean
assay_docker_client_send (AssayDockerClient  *self,
                          const char         *method,
                          const char         *path,
                          const char         *content_type,
                          const char         *body,
                          gsize               body_len,
                          long                timeout_s,
                          Transfer           *transfer,
                          guint              *status,
                          GError            **error)
{
  g_autofree char *content_type_header = NULL;
  struct curl_slist *headers = NULL;
  gboolean ret;
  CURL *curl;

  curl = assay_docker_client_create_handle (self, path, transfer);
  if (curl == NULL)
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "Cannot create an HTTP handle");
      return FALSE;
    }

  /* A POST always carries a body, if empty, so it has a Content-Length. */
  if (g_str_equal (method, "POST") || body != NULL)
    {
      curl_easy_setopt (curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) body_len);
      curl_easy_setopt (curl, CURLOPT_COPYPOSTFIELDS, body != NULL ? body : "");
    }
  if (!g_str_equal (method, "POST") && (body != NULL || !g_str_equal (method, "GET")))
    curl_easy_setopt (curl, CURLOPT_CUSTOMREQUEST, method);

  if (content_type != NULL)
    {
      content_type_header = g_strconcat ("Content-Type: ", content_type, NULL);
      headers = curl_slist_append (headers, content_type_header);
    }
  headers = curl_slist_append (headers, "Expect:");
  curl_easy_setopt (curl, CURLOPT_HTTPHEADER, headers);

  if (timeout_s > 0)
    curl_easy_setopt (curl, CURLOPT_TIMEOUT, timeout_s);

  ret = assay_docker_client_perform (self, curl, transfer, status, error);

  curl_easy_cleanup (curl);
  curl_slist_free_all (headers);

  return ret;
}

static void
assay_docker_client_constructed (GObject *object)
{
  AssayDockerClient *self = (AssayDockerClient *) object;

  G_OBJECT_CLASS (assay_docker_client_parent_class)->constructed (object);

  assay_docker_client_resolve_socket (self);
}

static void
assay_docker_client_finalize (GObject *object)
{
  AssayDockerClient *self = (AssayDockerClient *) object;

  g_clear_pointer (&self->requested_socket_path, g_free);
  g_clear_pointer (&self->socket_path, g_free);
  g_clear_pointer (&self->host_error, g_free);
  g_clear_pointer (&self->remote_host, g_free);
  g_clear_pointer (&self->engine_version, g_free);
  g_clear_pointer (&self->cgroup_version, g_free);
  g_clear_pointer (&self->cgroup_controllers, g_strfreev);
  g_mutex_clear (&self->engine_mutex);

  G_OBJECT_CLASS (assay_docker_client_parent_class)->finalize (object);
}

static void
assay_docker_client_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  AssayDockerClient *self = ASSAY_DOCKER_CLIENT (object);

  switch (prop_id)
    {
    case PROP_SOCKET_PATH:
      g_value_set_string (value, self->socket_path);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_docker_client_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  AssayDockerClient *self = ASSAY_DOCKER_CLIENT (object);

  switch (prop_id)
    {
    case PROP_SOCKET_PATH:
      self->requested_socket_path = g_value_dup_string (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_docker_client_class_init (AssayDockerClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = assay_docker_client_constructed;
  object_class->finalize = assay_docker_client_finalize;
  object_class->get_property = assay_docker_client_get_property;
  object_class->set_property = assay_docker_client_set_property;

  /* NULL: $DOCKER_HOST when it is unix://PATH, else /var/run/docker.sock.
   * Reading it gives the path in use, NULL when $DOCKER_HOST is unusable. */
  properties[PROP_SOCKET_PATH] =
    g_param_spec_string ("socket-path", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Class init runs once, under the type system's lock: the one safe place for
   * libcurl's global initialisation, which other threads must not race. */
  curl_global_init (CURL_GLOBAL_DEFAULT);
}

static void
assay_docker_client_init (AssayDockerClient *self)
{
  g_mutex_init (&self->engine_mutex);
}

AssayDockerClient *
assay_docker_client_new (const char *socket_path)
{
  return g_object_new (ASSAY_TYPE_DOCKER_CLIENT,
                       "socket-path", socket_path,
                       NULL);
}

/* The socket in use, or NULL when $DOCKER_HOST names something other than a
 * unix socket (every request then fails with ASSAY_DOCKER_ERROR_UNREACHABLE and
 * a message saying so). */
const char *
assay_docker_client_get_remote_host (AssayDockerClient *self)
{
  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);
  return self->remote_host;
}

const char *
assay_docker_client_get_socket_path (AssayDockerClient *self)
{
  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);

  return self->socket_path;
}

/* Podman's libpod info: whether it is rootless, its cgroup version and, rootless, the
 * controllers delegated to it. Docker's /info says rootless in SecurityOptions. */
static void
assay_docker_client_read_info (AssayDockerClient *self,
                               GCancellable      *cancellable)
{
  g_autoptr(JsonNode) info = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  info = assay_docker_client_request (self, "GET",
                                      self->engine == ASSAY_DOCKER_ENGINE_PODMAN ? "/libpod/info" : "/info",
                                      NULL, NULL, cancellable, &error);
  if (info == NULL || !JSON_NODE_HOLDS_OBJECT (info))
    {
      g_debug ("The engine at %s did not describe itself: %s", self->socket_path,
               error != NULL ? error->message : "not an object");
      return;
    }
  object = json_node_get_object (info);

  if (self->engine == ASSAY_DOCKER_ENGINE_PODMAN)
    {
      JsonObject *host = assay_json_get_object (object, "host");
      JsonObject *security = host != NULL ? assay_json_get_object (host, "security") : NULL;
      JsonArray *controllers = host != NULL ? assay_json_get_array (host, "cgroupControllers") : NULL;
      const char *version = host != NULL ? assay_json_get_string (host, "cgroupVersion") : NULL;

      self->rootless = security != NULL && assay_json_get_boolean_or (security, "rootless", FALSE);
      if (version != NULL)
        self->cgroup_version = g_strdup (g_str_has_prefix (version, "v") ? version + 1 : version);
      /* Rootful Podman lists nothing useful here: only a rootless one is limited to them. */
      if (self->rootless && controllers != NULL)
        {
          g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

          for (guint i = 0; i < json_array_get_length (controllers); i++)
            {
              JsonNode *element = json_array_get_element (controllers, i);

              if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
                g_strv_builder_add (builder, json_node_get_string (element));
            }
          self->cgroup_controllers = g_strv_builder_end (builder);
        }
    }
  else
    {
      JsonArray *options = assay_json_get_array (object, "SecurityOptions");
      const char *version = assay_json_get_string (object, "CgroupVersion");

      for (guint i = 0; options != NULL && i < json_array_get_length (options); i++)
        {
          JsonNode *element = json_array_get_element (options, i);

          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING &&
              g_str_equal (json_node_get_string (element), "name=rootless"))
            self->rootless = TRUE;
        }
      self->cgroup_version = g_strdup (version);
    }
}

gboolean
assay_docker_client_identify (AssayDockerClient  *self,
                              GCancellable       *cancellable,
                              GError            **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_autoptr(JsonNode) version = NULL;
  JsonObject *object;
  JsonArray *components;
  const char *text;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);

  locker = g_mutex_locker_new (&self->engine_mutex);
  if (self->identified)
    return TRUE;

  version = assay_docker_client_request (self, "GET", "/version", NULL, NULL, cancellable, error);
  if (version == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (version))
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "The engine sent an unexpected answer about its version");
      return FALSE;
    }

  object = json_node_get_object (version);
  self->engine = ASSAY_DOCKER_ENGINE_DOCKER;
  if ((text = assay_json_get_string (object, "Version")) != NULL)
    self->engine_version = assay_docker_client_sanitize_message (text, -1);

  /* Podman's compatible service names itself among the components. */
  components = assay_json_get_array (object, "Components");
  for (guint i = 0; components != NULL && i < json_array_get_length (components); i++)
    {
      JsonNode *element = json_array_get_element (components, i);
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (element) ||
          (name = assay_json_get_string (json_node_get_object (element), "Name")) == NULL ||
          strstr (name, "Podman") == NULL)
        continue;
      self->engine = ASSAY_DOCKER_ENGINE_PODMAN;
      if ((text = assay_json_get_string (json_node_get_object (element), "Version")) != NULL)
        {
          g_free (self->engine_version);
          self->engine_version = assay_docker_client_sanitize_message (text, -1);
        }
      break;
    }

  assay_docker_client_read_info (self, cancellable);
  self->identified = TRUE;
  return TRUE;
}

AssayDockerEngine
assay_docker_client_get_engine (AssayDockerClient *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), ASSAY_DOCKER_ENGINE_UNKNOWN);

  locker = g_mutex_locker_new (&self->engine_mutex);
  return self->identified ? self->engine : ASSAY_DOCKER_ENGINE_UNKNOWN;
}

/* The strings below never change once identify has set them, so they outlive the lock. */
const char *
assay_docker_client_get_engine_version (AssayDockerClient *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);

  locker = g_mutex_locker_new (&self->engine_mutex);
  return self->identified ? self->engine_version : NULL;
}

gboolean
assay_docker_client_is_rootless (AssayDockerClient *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);

  locker = g_mutex_locker_new (&self->engine_mutex);
  return self->identified && self->rootless;
}

const char *
assay_docker_client_get_cgroup_version (AssayDockerClient *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);

  locker = g_mutex_locker_new (&self->engine_mutex);
  return self->identified ? self->cgroup_version : NULL;
}

const char * const *
assay_docker_client_get_cgroup_controllers (AssayDockerClient *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);

  locker = g_mutex_locker_new (&self->engine_mutex);
  return self->identified ? (const char * const *) self->cgroup_controllers : NULL;
}

char *
assay_docker_client_describe_engine (AssayDockerClient *self)
{
  AssayDockerEngine engine = assay_docker_client_get_engine (self);
  const char *version = assay_docker_client_get_engine_version (self);

  if (engine == ASSAY_DOCKER_ENGINE_UNKNOWN)
    return NULL;
  return g_strdup_printf ("%s%s%s%s", engine == ASSAY_DOCKER_ENGINE_PODMAN ? "Podman" : "Docker",
                          version != NULL ? " " : "", version != NULL ? version : "",
                          assay_docker_client_is_rootless (self) ? " (rootless)" : "");
}

/* Escapes one element of a URL path (a container id, an image reference). */
char *
assay_docker_escape_path_segment (const char *segment)
{
  g_return_val_if_fail (segment != NULL, NULL);

  /* "." and ".." would be taken as dot-segments somewhere along the way. */
  if (g_str_equal (segment, "."))
    return g_strdup ("%2E");
  if (g_str_equal (segment, ".."))
    return g_strdup ("%2E%2E");

  return g_uri_escape_string (segment, ":@", FALSE);
}

gboolean
assay_docker_client_ping (AssayDockerClient  *self,
                          GCancellable       *cancellable,
                          GError            **error)
{
  Transfer transfer;
  guint status = 0;
  gboolean ret = FALSE;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);

  if (!assay_docker_client_check_usable (self, cancellable, error))
    return FALSE;

  assay_docker_client_transfer_init (&transfer, cancellable);

  if (assay_docker_client_send (self, "GET", "/_ping", NULL, NULL, 0, PING_TIMEOUT_S,
                                &transfer, &status, error))
    {
      if (status == 200)
        ret = TRUE;
      else
        {
          g_autofree char *message = assay_docker_client_extract_error_message (transfer.body->data, transfer.body->len);

          assay_docker_client_set_http_error (error, status, message);
        }
    }

  assay_docker_client_transfer_clear (&transfer);

  return ret;
}

/**
 * assay_docker_client_request:
 * @method: "GET", "POST", "DELETE"…
 * @path: the path after the API version, with the query, e.g. "/containers/json?all=1"
 * @body: (nullable): a JSON body to send
 * @status_out: (out) (optional): the HTTP status, 0 when the daemon did not answer
 *
 * Returns: (transfer full): the parsed response, a JSON null node when the body
 * was empty, or %NULL with @error set. HTTP statuses of 400 and above become
 * errors carrying the daemon's `message` (404 → NOT_FOUND, 409 → CONFLICT).
 */
JsonNode *
assay_docker_client_request (AssayDockerClient  *self,
                             const char         *method,
                             const char         *path,
                             JsonNode           *body,
                             guint              *status_out,
                             GCancellable       *cancellable,
                             GError            **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *body_text = NULL;
  g_autoptr(GError) parse_error = NULL;
  JsonNode *result = NULL;
  Transfer transfer;
  guint status = 0;
  gsize body_len = 0;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);

  if (status_out != NULL)
    *status_out = 0;

  if (!assay_docker_client_check_usable (self, cancellable, error))
    return NULL;

  if (body != NULL)
    body_text = json_to_string (body, FALSE);
  if (body_text != NULL)
    body_len = strlen (body_text);

  assay_docker_client_transfer_init (&transfer, cancellable);

  if (!assay_docker_client_send (self, method, path,
                                 body_text != NULL ? "application/json" : NULL,
                                 body_text, body_len, 0, &transfer, &status, error))
    goto out;

  if (status_out != NULL)
    *status_out = status;

  if (status < 200 || (status >= 300 && status != 304))
    {
      g_autofree char *message = assay_docker_client_extract_error_message (transfer.body->data, transfer.body->len);

      assay_docker_client_set_http_error (error, status, message);
      goto out;
    }

  /* Podman answers some calls (the tag) with a lone newline. */
  while (transfer.body->len > 0 && g_ascii_isspace (transfer.body->data[transfer.body->len - 1]))
    g_byte_array_set_size (transfer.body, transfer.body->len - 1);
  if (transfer.body->len == 0)
    {
      result = json_node_new (JSON_NODE_NULL);
      goto out;
    }

  parser = json_parser_new ();
  if (!assay_json_parser_load_untrusted (parser, (const char *) transfer.body->data,
                                   transfer.body->len, &parse_error) ||
      json_parser_get_root (parser) == NULL)
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   "The Docker daemon sent invalid JSON for %s %s", method, path);
      goto out;
    }

  result = json_parser_steal_root (parser);

out:
  assay_docker_client_transfer_clear (&transfer);

  return result;
}

/* Returns: (transfer full): the image's inspection object, or %NULL with
 * ASSAY_DOCKER_ERROR_NOT_FOUND when there is no such image. */
JsonNode *
assay_docker_client_inspect_image (AssayDockerClient  *self,
                                   const char         *image_ref,
                                   GCancellable       *cancellable,
                                   GError            **error)
{
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);
  g_return_val_if_fail (image_ref != NULL && image_ref[0] != '\0', NULL);

  escaped = assay_docker_escape_path_segment (image_ref);
  path = g_strdup_printf ("/images/%s/json", escaped);

  node = assay_docker_client_request (self, "GET", path, NULL, NULL, cancellable, error);
  if (node == NULL)
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   "The Docker daemon sent an unexpected answer about image %s", image_ref);
      return NULL;
    }

  return g_steal_pointer (&node);
}

/* Like g_file_query_exists() with an error: FALSE with @error unset means the
 * image does not exist, FALSE with @error set means we could not tell. */
gboolean
assay_docker_client_image_exists (AssayDockerClient  *self,
                                  const char         *image_ref,
                                  GCancellable       *cancellable,
                                  GError            **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);
  g_return_val_if_fail (image_ref != NULL && image_ref[0] != '\0', FALSE);

  node = assay_docker_client_inspect_image (self, image_ref, cancellable, &local_error);
  if (node != NULL)
    return TRUE;

  if (!g_error_matches (local_error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_NOT_FOUND))
    g_propagate_error (error, g_steal_pointer (&local_error));

  return FALSE;
}

/* A handle that streams TRANSFER's upload, a tar, to PATH with chunked encoding: POST, or PUT
 * when PUT; *HEADERS is the list it uses, for the caller to free after the transfer. */
static CURL *
assay_docker_client_new_tar_upload (AssayDockerClient   *self,
                                    const char          *path,
                                    Transfer            *transfer,
                                    gboolean             put,
                                    struct curl_slist  **headers,
                                    GError             **error)
{
  CURL *curl = assay_docker_client_create_handle (self, path, transfer);

  if (curl == NULL)
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED, "Cannot create an HTTP handle");
      return NULL;
    }
  *headers = curl_slist_append (*headers, "Content-Type: application/x-tar");
  *headers = curl_slist_append (*headers, "Transfer-Encoding: chunked");
  *headers = curl_slist_append (*headers, "Expect:");
  curl_easy_setopt (curl, CURLOPT_HTTPHEADER, *headers);
  curl_easy_setopt (curl, put ? CURLOPT_UPLOAD : CURLOPT_POST, 1L);
  curl_easy_setopt (curl, CURLOPT_READFUNCTION, assay_docker_client_curl_read_cb);
  curl_easy_setopt (curl, CURLOPT_READDATA, transfer);
  return curl;
}

/**
 * assay_docker_client_import_image:
 * @tar: an uncompressed or compressed tar of a root file system
 * @total_bytes: the size of @tar, for progress; 0 when unknown
 * @progress: (nullable): called in the calling thread
 *
 * Creates the image @repo:@tag from @tar (POST /images/create?fromSrc=-). The
 * tar is streamed with chunked transfer encoding, never held in memory.
 */
gboolean
assay_docker_client_import_image (AssayDockerClient  *self,
                                  GInputStream       *tar,
                                  guint64             total_bytes,
                                  const char         *repo,
                                  const char         *tag,
                                  AssayProgressFunc   progress,
                                  gpointer            progress_data,
                                  GCancellable       *cancellable,
                                  GError            **error)
{
  g_autofree char *reference = NULL;
  g_autofree char *escaped_reference = NULL;
  g_autofree char *path = NULL;
  struct curl_slist *headers = NULL;
  gboolean ret = FALSE;
  Transfer transfer;
  guint status = 0;
  CURL *curl;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);
  g_return_val_if_fail (G_IS_INPUT_STREAM (tar), FALSE);
  g_return_val_if_fail (repo != NULL && repo[0] != '\0', FALSE);
  g_return_val_if_fail (tag != NULL && tag[0] != '\0', FALSE);

  if (!assay_docker_client_check_usable (self, cancellable, error))
    return FALSE;

  /* The tag within repo: Podman ignores the tag parameter of an import (and names the image
   * :latest), Docker takes either. */
  reference = g_strdup_printf ("%s:%s", repo, tag);
  escaped_reference = g_uri_escape_string (reference, NULL, FALSE);
  path = g_strdup_printf ("/images/create?fromSrc=-&repo=%s", escaped_reference);

  assay_docker_client_transfer_init (&transfer, cancellable);
  transfer.line_mode = TRUE;
  transfer.upload = tar;
  transfer.total = total_bytes;
  transfer.progress = progress;
  transfer.progress_data = progress_data;

  curl = assay_docker_client_new_tar_upload (self, path, &transfer, FALSE, &headers, error);
  if (curl == NULL)
    goto out;

  assay_docker_client_transfer_report (&transfer, total_bytes > 0 ? 0.0 : -1, "Sending the image to Docker");

  if (!assay_docker_client_perform (self, curl, &transfer, &status, error))
    goto out;

  /* A last line without a newline. */
  if (transfer.line->len > 0)
    assay_docker_client_transfer_handle_line (&transfer, transfer.line->data, transfer.line->len);

  if (status < 200 || status >= 300)
    {
      assay_docker_client_set_http_error (error, status, transfer.stream_error != NULL
                                                           ? transfer.stream_error : transfer.last_message);
      goto out;
    }

  /* Errors after the headers arrive in the progress stream with status 200. */
  if (transfer.stream_error != NULL)
    {
      g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                   "Docker could not import the image: %s", transfer.stream_error);
      goto out;
    }

  assay_docker_client_transfer_report (&transfer, 1.0, "Image imported");
  ret = TRUE;

out:
  g_clear_pointer (&curl, curl_easy_cleanup);
  curl_slist_free_all (headers);
  assay_docker_client_transfer_clear (&transfer);

  return ret;
}

/* Unpacks TAR into PATH of the container ID (PUT /containers/ID/archive): how files reach an
 * engine that does not see this machine's. The container need not run. */
gboolean
assay_docker_client_put_archive (AssayDockerClient  *self,
                                 const char         *id,
                                 const char         *path,
                                 GInputStream       *tar,
                                 GCancellable       *cancellable,
                                 GError            **error)
{
  g_autofree char *escaped_id = NULL;
  g_autofree char *escaped_path = NULL;
  g_autofree char *url_path = NULL;
  struct curl_slist *headers = NULL;
  gboolean ret = FALSE;
  Transfer transfer;
  guint status = 0;
  CURL *curl;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);
  g_return_val_if_fail (id != NULL && path != NULL, FALSE);
  g_return_val_if_fail (G_IS_INPUT_STREAM (tar), FALSE);

  if (!assay_docker_client_check_usable (self, cancellable, error))
    return FALSE;

  escaped_id = g_uri_escape_string (id, NULL, FALSE);
  escaped_path = g_uri_escape_string (path, NULL, FALSE);
  url_path = g_strdup_printf ("/containers/%s/archive?path=%s", escaped_id, escaped_path);
  assay_docker_client_transfer_init (&transfer, cancellable);
  transfer.upload = tar;

  curl = assay_docker_client_new_tar_upload (self, url_path, &transfer, TRUE, &headers, error);
  if (curl == NULL)
    goto out;

  if (!assay_docker_client_perform (self, curl, &transfer, &status, error))
    goto out;
  if (status < 200 || status >= 300)
    {
      g_autofree char *message = assay_docker_client_extract_error_message (transfer.body->data, transfer.body->len);

      assay_docker_client_set_http_error (error, status, message);
      goto out;
    }
  ret = TRUE;

out:
  g_clear_pointer (&curl, curl_easy_cleanup);
  curl_slist_free_all (headers);
  assay_docker_client_transfer_clear (&transfer);
  return ret;
}

/* Gives @image_ref the additional name @repo:@tag. */
gboolean
assay_docker_client_tag_image (AssayDockerClient  *self,
                               const char         *image_ref,
                               const char         *repo,
                               const char         *tag,
                               GCancellable       *cancellable,
                               GError            **error)
{
  g_autofree char *escaped = NULL;
  g_autofree char *escaped_repo = NULL;
  g_autofree char *escaped_tag = NULL;
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), FALSE);
  g_return_val_if_fail (image_ref != NULL && image_ref[0] != '\0', FALSE);
  g_return_val_if_fail (repo != NULL && repo[0] != '\0', FALSE);
  g_return_val_if_fail (tag != NULL && tag[0] != '\0', FALSE);

  escaped = assay_docker_escape_path_segment (image_ref);
  escaped_repo = g_uri_escape_string (repo, NULL, FALSE);
  escaped_tag = g_uri_escape_string (tag, NULL, FALSE);
  path = g_strdup_printf ("/images/%s/tag?repo=%s&tag=%s", escaped, escaped_repo, escaped_tag);

  node = assay_docker_client_request (self, "POST", path, NULL, NULL, cancellable, error);

  return node != NULL;
}

/* Parses "HTTP/1.1 101 UPGRADED\r\n…"; 0 when it is not a status line. */
static guint
assay_docker_client_parse_status_line (const char *header)
{
  guint64 status = 0;

  if (!g_str_has_prefix (header, "HTTP/1."))
    return 0;

  header = strchr (header, ' ');
  if (header == NULL || !g_ascii_isdigit (header[1]) ||
      !g_ascii_isdigit (header[2]) || !g_ascii_isdigit (header[3]) ||
      (header[4] != ' ' && header[4] != '\r'))
    return 0;

  status = g_ascii_strtoull (header + 1, NULL, 10);
  return (guint) status;
}

/* The Content-Length of a response header, or -1. */
static gint64
assay_docker_client_parse_content_length (const char *header)
{
  g_auto(GStrv) lines = g_strsplit (header, "\r\n", -1);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      const char *colon = strchr (lines[i], ':');
      g_autofree char *name = NULL;
      guint64 value;
      char *end = NULL;

      if (colon == NULL)
        continue;

      name = g_strndup (lines[i], colon - lines[i]);
      if (g_ascii_strcasecmp (g_strstrip (name), "Content-Length") != 0)
        continue;

      value = g_ascii_strtoull (colon + 1, &end, 10);
      if (end == colon + 1 || value > G_MAXINT32)
        return -1;

      return (gint64) value;
    }

  return -1;
}

/* Reads the response header one byte at a time, so that nothing after the
 * blank line (the first frames of the stream) is consumed here. */
static char *
assay_docker_client_read_response_header (GInputStream  *input,
                                          GCancellable  *cancellable,
                                          GError       **error)
{
  g_autoptr(GString) header = g_string_new (NULL);

  while (!g_str_has_suffix (header->str, "\r\n\r\n"))
    {
      char c;
      gssize n;

      if (header->len >= MAX_ATTACH_HEADER)
        {
          g_set_error (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                       "The Docker daemon sent a response header longer than %d bytes",
                       MAX_ATTACH_HEADER);
          return NULL;
        }

      n = g_input_stream_read (input, &c, 1, cancellable, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        {
          g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                               "The Docker daemon closed the connection during the attach");
          return NULL;
        }
      if (c == '\0')
        {
          g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                               "The Docker daemon sent an invalid response header");
          return NULL;
        }

      g_string_append_c (header, c);
    }

  return g_string_free (g_steal_pointer (&header), FALSE);
}

/* The error for a refused attach, with the daemon's message when it sent one. */
static void
assay_docker_client_set_attach_error (GInputStream  *input,
                                      const char    *header,
                                      guint          status,
                                      GCancellable  *cancellable,
                                      GError       **error)
{
  gint64 content_length = assay_docker_client_parse_content_length (header);
  g_autofree char *message = NULL;

  if (content_length > 0)
    {
      gsize wanted = (gsize) MIN (content_length, MAX_ATTACH_ERROR_BODY);
      g_autofree guint8 *body = g_malloc (wanted);
      gsize got = 0;

      if (g_input_stream_read_all (input, body, wanted, &got, cancellable, NULL))
        message = assay_docker_client_extract_error_message (body, got);
    }

  assay_docker_client_set_http_error (error, status, message);
}

/**
 * assay_docker_client_attach:
 *
 * Attaches to the stdin, stdout and stderr of a container, before or after it
 * starts. The HTTP connection is hijacked: after the `101 UPGRADED` response,
 * the socket carries raw bytes to the container's stdin and Docker's
 * multiplexed frames (see AssayDockerDemux) from its stdout and stderr.
 *
 * Returns: (transfer full): a #GSocketConnection over the socket
 */
GIOStream *
assay_docker_client_attach (AssayDockerClient  *self,
                            const char         *container_id,
                            GCancellable       *cancellable,
                            GError            **error)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *request = NULL;
  g_autofree char *header = NULL;
  curl_socket_t curl_fd = CURL_SOCKET_BAD;
  GInputStream *input;
  GOutputStream *output;
  Transfer transfer;
  guint status = 0;
  gboolean connected;
  CURL *curl;
  int fd;

  g_return_val_if_fail (ASSAY_IS_DOCKER_CLIENT (self), NULL);
  g_return_val_if_fail (container_id != NULL && container_id[0] != '\0', NULL);

  if (!assay_docker_client_check_usable (self, cancellable, error))
    return NULL;

  /* libcurl cannot hand over an upgraded HTTP/1.1 connection, so it only
   * connects; the request and the response header go over a dup of its socket. */
  assay_docker_client_transfer_init (&transfer, cancellable);
  curl = assay_docker_client_create_handle (self, "/_ping", &transfer);
  if (curl == NULL)
    {
      assay_docker_client_transfer_clear (&transfer);
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "Cannot create an HTTP handle");
      return NULL;
    }

  curl_easy_setopt (curl, CURLOPT_CONNECT_ONLY, 1L);
  connected = assay_docker_client_perform (self, curl, &transfer, &status, error);
  if (connected &&
      (curl_easy_getinfo (curl, CURLINFO_ACTIVESOCKET, &curl_fd) != CURLE_OK ||
       curl_fd == CURL_SOCKET_BAD))
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "Cannot get the socket of the Docker connection");
      connected = FALSE;
    }

  fd = connected ? fcntl (curl_fd, F_DUPFD_CLOEXEC, 3) : -1;
  if (connected && fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Cannot duplicate the Docker socket: %s", g_strerror (saved_errno));
    }

  curl_easy_cleanup (curl);
  assay_docker_client_transfer_clear (&transfer);

  if (fd < 0)
    return NULL;

  socket = g_socket_new_from_fd (fd, error);
  if (socket == NULL)
    {
      close (fd);
      return NULL;
    }

  /* Bounded handshake; the stream itself may stay quiet for any time. */
  g_socket_set_timeout (socket, ATTACH_HANDSHAKE_S);

  connection = g_socket_connection_factory_create_connection (socket);
  input = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  output = g_io_stream_get_output_stream (G_IO_STREAM (connection));

  escaped = assay_docker_escape_path_segment (container_id);
  request = g_strdup_printf ("POST " API_PREFIX "/containers/%s/attach"
                             "?stream=1&stdin=1&stdout=1&stderr=1 HTTP/1.1\r\n"
                             "Host: localhost\r\n"
                             "User-Agent: Assay/" PACKAGE_VERSION "\r\n"
                             "Content-Type: text/plain\r\n"
                             "Content-Length: 0\r\n"
                             "Connection: Upgrade\r\n"
                             "Upgrade: tcp\r\n"
                             "\r\n",
                             escaped);

  if (!g_output_stream_write_all (output, request, strlen (request), NULL, cancellable, error))
    return NULL;

  header = assay_docker_client_read_response_header (input, cancellable, error);
  if (header == NULL)
    return NULL;

  status = assay_docker_client_parse_status_line (header);
  if (status == 0)
    {
      g_set_error_literal (error, ASSAY_DOCKER_ERROR, ASSAY_DOCKER_ERROR_FAILED,
                           "The Docker daemon sent an invalid response to the attach");
      return NULL;
    }

  if (status != 101 && status != 200)
    {
      assay_docker_client_set_attach_error (input, header, status, cancellable, error);
      return NULL;
    }

  g_socket_set_timeout (socket, 0);

  return G_IO_STREAM (g_steal_pointer (&connection));
}
