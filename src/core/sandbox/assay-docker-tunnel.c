/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Docker"

#include "config.h"

#include <stdlib.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>

#include "assay-docker-endpoint.h"
#include "assay-docker-tunnel.h"

/* The last words of ssh kept for a message. */
#define MAX_ERROR_BYTES 2048
/* The ports the docker CLI assumes. */
#define DEFAULT_TLS_PORT 2376
#define DEFAULT_TCP_PORT 2375
/* How long ssh's shared connection waits for another request. */
#define SSH_PERSIST_S 30

typedef enum
{
  TUNNEL_SSH,
  TUNNEL_TLS,
  TUNNEL_TCP,
} TunnelKind;

typedef struct
{
  TunnelKind       kind;
  char            *docker_host;
  char            *host;
  int              port;          /* -1: ssh's own */
  char            *user;
  char           **ssh_command;   /* "ssh" and its options, before the destination */
  GTlsCertificate *certificate;   /* this side's, for TLS */
  GTlsDatabase    *database;      /* the CA that signs the engine's */

  char            *dir;           /* 0700, holds the socket */
  char            *socket_path;
  char            *control_path;  /* ssh's shared connection */
  GMainContext    *context;
  GThread         *thread;
  GSocketService  *service;

  GMutex           lock;
  GCond            started;
  gboolean         ready;
  GError          *start_error;
  char            *last_error;
  GTlsCertificateFlags tls_errors;   /* why the engine's certificate was refused last */
  char            *tls_expiry;       /* when that certificate's validity ended, or NULL */
} Tunnel;

/* A connection to the socket, carried to the engine. */
typedef struct
{
  Tunnel            *tunnel;
  GSocketConnection *local;
  GIOStream         *remote;
  GSubprocess       *ssh;
  GString           *ssh_stderr;
} Carry;

static GMutex tunnels_lock;
static GHashTable *tunnels;   /* DOCKER_HOST → Tunnel*, for the process's life */

static void
tunnel_set_last_error (Tunnel     *tunnel,
                       const char *message)
{
  g_mutex_lock (&tunnel->lock);
  g_free (tunnel->last_error);
  tunnel->last_error = g_strdup (message);
  g_mutex_unlock (&tunnel->lock);
}

static void
carry_free (Carry *carry)
{
  if (carry->ssh != NULL)
    g_subprocess_force_exit (carry->ssh);
  g_clear_object (&carry->ssh);
  g_clear_object (&carry->remote);
  g_clear_object (&carry->local);
  if (carry->ssh_stderr != NULL)
    g_string_free (carry->ssh_stderr, TRUE);
  g_free (carry);
}

/* TLS as the environment (DOCKER_TLS_VERIFY) or the docker context says. */
static gboolean
tls_enabled (void)
{
  g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();

  return endpoint != NULL && endpoint->tls;
}

/* DOCKER_CERT_PATH, the context's certificates, else ~/.docker. */
static char *
cert_dir (void)
{
  g_autoptr(AssayDockerEndpoint) endpoint = assay_docker_endpoint_resolve ();

  if (endpoint != NULL && endpoint->cert_dir != NULL)
    return g_strdup (endpoint->cert_dir);
  return g_build_filename (g_get_home_dir (), ".docker", NULL);
}

static gboolean
host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;

  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

/* DOCKER_HOST read: scheme, host, port, user. */
static gboolean
parse_host (const char  *docker_host,
            TunnelKind  *kind,
            char       **host,
            int         *port,
            char       **user,
            char       **why_not)
{
  g_autoptr(GUri) uri = g_uri_parse (docker_host, G_URI_FLAGS_NONE, NULL);
  const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;

  if (uri == NULL || scheme == NULL || g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    {
      if (why_not != NULL)
        *why_not = g_strdup (_("it is not an address Assay can read (ssh://USER@HOST or tcp://HOST:PORT)"));
      return FALSE;
    }
  if (g_ascii_strcasecmp (scheme, "ssh") == 0)
    *kind = TUNNEL_SSH;
  else if (g_ascii_strcasecmp (scheme, "tcp") == 0)
    *kind = tls_enabled () ? TUNNEL_TLS : TUNNEL_TCP;
  else
    {
      if (why_not != NULL)
        *why_not = g_strdup (_("Assay reaches a Docker engine on a unix socket, over ssh:// or over tcp:// with TLS"));
      return FALSE;
    }
  if (g_uri_get_path (uri)[0] != '\0' && !g_str_equal (g_uri_get_path (uri), "/"))
    {
      if (why_not != NULL)
        *why_not = g_strdup (_("a path after the host is not supported"));
      return FALSE;
    }
  if (*kind == TUNNEL_TCP && !host_is_loopback (g_uri_get_host (uri)))
    {
      if (why_not != NULL)
        *why_not = g_strdup (_("plain tcp:// to another machine is neither encrypted nor authenticated, and "
                               "whoever reaches that port is root there: set DOCKER_TLS_VERIFY=1 and "
                               "DOCKER_CERT_PATH, or use ssh://"));
      return FALSE;
    }
  *host = g_strdup (g_uri_get_host (uri));
  *port = g_uri_get_port (uri);
  if (*port < 0 && *kind != TUNNEL_SSH)
    *port = *kind == TUNNEL_TLS ? DEFAULT_TLS_PORT : DEFAULT_TCP_PORT;
  *user = g_strdup (g_uri_get_user (uri));
  return TRUE;
}

gboolean
assay_docker_tunnel_supports (const char  *docker_host,
                              char       **why_not)
{
  g_autofree char *host = NULL;
  g_autofree char *user = NULL;
  TunnelKind kind;
  int port;

  g_return_val_if_fail (docker_host != NULL, FALSE);
  return parse_host (docker_host, &kind, &host, &port, &user, why_not);
}

/* ---- carrying a connection ---------------------------------------------------------------- */

static void
carry_spliced_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Carry *carry = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_io_stream_splice_finish (result, &error) && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    g_debug ("A connection to %s ended: %s", carry->tunnel->docker_host, error->message);
  carry_free (carry);
}

static void
carry_splice (Carry *carry)
{
  /* Done when either side is: the engine's answer ended, or the client hung up. */
  g_io_stream_splice_async (G_IO_STREAM (carry->local), carry->remote,
                            G_IO_STREAM_SPLICE_CLOSE_STREAM1 | G_IO_STREAM_SPLICE_CLOSE_STREAM2,
                            G_PRIORITY_DEFAULT, NULL, carry_spliced_cb, carry);
}

static void
string_free (gpointer string)
{
  g_string_free (string, TRUE);
}

static void
ssh_stderr_read_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Tunnel *tunnel = user_data;
  GInputStream *stream = G_INPUT_STREAM (source);
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (stream, result, NULL);
  GString *text = g_object_get_data (G_OBJECT (stream), "assay-ssh-stderr");

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      g_autofree char *line = NULL;

      g_strstrip (text->str);
      if (text->str[0] != '\0')
        {
          /* Its last line says why. */
          const char *last = strrchr (text->str, '\n');

          line = g_utf8_make_valid (last != NULL ? last + 1 : text->str, -1);
          tunnel_set_last_error (tunnel, line);
        }
      g_object_set_data (G_OBJECT (stream), "assay-ssh-stderr", NULL);
      g_object_unref (stream);
      return;
    }
  g_string_append_len (text, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  if (text->len > MAX_ERROR_BYTES)
    g_string_erase (text, 0, text->len - MAX_ERROR_BYTES);
  g_input_stream_read_bytes_async (stream, 1024, G_PRIORITY_DEFAULT, NULL, ssh_stderr_read_cb, tunnel);
}

static void
carry_by_ssh (Carry *carry)
{
  Tunnel *tunnel = carry->tunnel;
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  GInputStream *stderr_pipe;

  for (guint i = 0; tunnel->ssh_command[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (tunnel->ssh_command[i]));
  /* Never a prompt: there is no terminal to answer it. One ssh connection for all the
   * requests (a master in the background, told to exit with the process, and at most
   * SSH_PERSIST_S after the last request if the process could not). */
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("BatchMode=yes"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ControlMaster=auto"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strconcat ("ControlPath=", tunnel->control_path, NULL));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup_printf ("ControlPersist=%d", SSH_PERSIST_S));
  if (tunnel->port >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("-p"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", tunnel->port));
    }
  if (tunnel->user != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("-l"));
      g_ptr_array_add (argv, g_strdup (tunnel->user));
    }
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (tunnel->host));
  g_ptr_array_add (argv, g_strdup ("docker"));
  g_ptr_array_add (argv, g_strdup ("system"));
  g_ptr_array_add (argv, g_strdup ("dial-stdio"));
  g_ptr_array_add (argv, NULL);

  carry->ssh = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  if (carry->ssh == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("cannot run %s: %s"), tunnel->ssh_command[0], error->message);

      tunnel_set_last_error (tunnel, message);
      carry_free (carry);
      return;
    }
  stderr_pipe = g_object_ref (g_subprocess_get_stderr_pipe (carry->ssh));
  g_object_set_data_full (G_OBJECT (stderr_pipe), "assay-ssh-stderr", g_string_new (NULL), string_free);
  g_input_stream_read_bytes_async (stderr_pipe, 1024, G_PRIORITY_DEFAULT, NULL, ssh_stderr_read_cb, tunnel);
  carry->remote = g_simple_io_stream_new (g_subprocess_get_stdout_pipe (carry->ssh),
                                          g_subprocess_get_stdin_pipe (carry->ssh));
  carry_splice (carry);
}

static gboolean
tls_accept_cb (GTlsConnection       *connection,
               GTlsCertificate      *peer,
               GTlsCertificateFlags  errors,
               Tunnel               *tunnel)
{
  g_autoptr(GDateTime) not_after = g_tls_certificate_get_not_valid_after (peer);

  /* Never accepted: kept to say why. */
  tunnel->tls_errors = errors;
  g_clear_pointer (&tunnel->tls_expiry, g_free);
  if (not_after != NULL)
    tunnel->tls_expiry = g_date_time_format (not_after, "%Y-%m-%d %H:%M UTC");
  return FALSE;
}

/* What GIO calls "Unacceptable TLS certificate", in words. */
static char *
describe_tls_errors (Tunnel *tunnel)
{
  g_autoptr(GString) why = g_string_new (NULL);
  GTlsCertificateFlags errors = tunnel->tls_errors;

  if (errors & G_TLS_CERTIFICATE_EXPIRED)
    g_string_append_printf (why, _("the engine's certificate expired on %s; "),
                            tunnel->tls_expiry ? tunnel->tls_expiry : "?");
  if (errors & G_TLS_CERTIFICATE_NOT_ACTIVATED)
    g_string_append (why, _("the engine's certificate is not valid yet; "));
  if (errors & G_TLS_CERTIFICATE_UNKNOWN_CA)
    g_string_append (why, _("the engine's certificate is not signed by the CA in ca.pem; "));
  if (errors & G_TLS_CERTIFICATE_BAD_IDENTITY)
    g_string_append_printf (why, _("the engine's certificate is not for %s; "), tunnel->host);
  if (errors & G_TLS_CERTIFICATE_REVOKED)
    g_string_append (why, _("the engine's certificate was revoked; "));
  if (errors & G_TLS_CERTIFICATE_INSECURE)
    g_string_append (why, _("the engine's certificate uses an insecure algorithm; "));
  if (why->len == 0)
    return NULL;
  g_string_truncate (why, why->len - 2);
  return g_string_free (g_steal_pointer (&why), FALSE);
}

static void
tls_event_cb (GSocketClient      *client,
              GSocketClientEvent  event,
              GSocketConnectable *connectable,
              GIOStream          *connection,
              Tunnel             *tunnel)
{
  if (event != G_SOCKET_CLIENT_TLS_HANDSHAKING)
    return;
  g_tls_connection_set_certificate (G_TLS_CONNECTION (connection), tunnel->certificate);
  g_tls_connection_set_database (G_TLS_CONNECTION (connection), tunnel->database);
  tunnel->tls_errors = 0;
  g_signal_connect (connection, "accept-certificate", G_CALLBACK (tls_accept_cb), tunnel);
}

static void
carry_connected_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Carry *carry = user_data;
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (source), result, &error);

  if (connection == NULL)
    {
      g_autofree char *why = NULL;
      g_autofree char *message = NULL;

      if (g_error_matches (error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE))
        why = describe_tls_errors (carry->tunnel);
      message = g_strdup_printf (_("cannot reach %s:%d: %s"), carry->tunnel->host,
                                 carry->tunnel->port, why != NULL ? why : error->message);

      tunnel_set_last_error (carry->tunnel, message);
      carry_free (carry);
      return;
    }
  /* The timeout was for connecting: once carried, a connection may be quiet for as long as a
   * cell runs or the engine unpacks an image. */
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 0);
  carry->remote = G_IO_STREAM (connection);
  carry_splice (carry);
}

static void
carry_by_tcp (Carry *carry)
{
  Tunnel *tunnel = carry->tunnel;
  g_autoptr(GSocketClient) client = g_socket_client_new ();

  g_socket_client_set_timeout (client, 30);
  /* Straight to the engine: its API is root on that host and goes through no proxy (nor
   * through libproxy, which a sanitized build cannot load). */
  g_socket_client_set_enable_proxy (client, FALSE);
  if (tunnel->kind == TUNNEL_TLS)
    {
      /* The engine's certificate is checked against the CA and its name (the default
       * validation), this side's is shown. */
      g_socket_client_set_tls (client, TRUE);
      g_signal_connect (client, "event", G_CALLBACK (tls_event_cb), tunnel);
    }
  g_socket_client_connect_to_host_async (client, tunnel->host, (guint16) tunnel->port, NULL,
                                         carry_connected_cb, carry);
}

static gboolean
tunnel_incoming_cb (GSocketService     *service,
                    GSocketConnection  *connection,
                    GObject            *source_object,
                    gpointer            user_data)
{
  Tunnel *tunnel = user_data;
  Carry *carry = g_new0 (Carry, 1);

  carry->tunnel = tunnel;
  carry->local = g_object_ref (connection);
  if (tunnel->kind == TUNNEL_SSH)
    carry_by_ssh (carry);
  else
    carry_by_tcp (carry);
  return TRUE;
}

/* ---- the tunnel's thread ------------------------------------------------------------------ */

static gpointer
tunnel_thread (gpointer data)
{
  Tunnel *tunnel = data;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  GError *error = NULL;

  g_main_context_push_thread_default (tunnel->context);
  tunnel->service = g_socket_service_new ();
  address = g_unix_socket_address_new (tunnel->socket_path);
  if (g_socket_listener_add_address (G_SOCKET_LISTENER (tunnel->service), address, G_SOCKET_TYPE_STREAM,
                                     G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, &error))
    {
      g_chmod (tunnel->socket_path, 0600);
      g_signal_connect (tunnel->service, "incoming", G_CALLBACK (tunnel_incoming_cb), tunnel);
      g_socket_service_start (tunnel->service);
    }
  g_mutex_lock (&tunnel->lock);
  tunnel->ready = TRUE;
  tunnel->start_error = error;
  g_cond_broadcast (&tunnel->started);
  g_mutex_unlock (&tunnel->lock);
  if (error != NULL)
    return NULL;

  loop = g_main_loop_new (tunnel->context, FALSE);
  g_main_loop_run (loop);
  return NULL;
}

static gboolean
tunnel_load_tls (Tunnel  *tunnel,
                 GError **error)
{
  g_autofree char *dir = cert_dir ();
  g_autofree char *ca = g_build_filename (dir, "ca.pem", NULL);
  g_autofree char *cert = g_build_filename (dir, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (dir, "key.pem", NULL);
  g_autoptr(GError) local_error = NULL;

  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("TLS is not available: GIO has no TLS backend (install glib-networking)"));
      return FALSE;
    }
  tunnel->database = g_tls_file_database_new (ca, &local_error);
  if (tunnel->database == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the Docker engine's CA certificate %s: %s"),
                   ca, local_error->message);
      return FALSE;
    }
  tunnel->certificate = g_tls_certificate_new_from_files (cert, key, &local_error);
  if (tunnel->certificate == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the client certificate %s and key %s: %s"),
                   cert, key, local_error->message);
      return FALSE;
    }
  return TRUE;
}

static Tunnel *
tunnel_new (const char  *docker_host,
            GError     **error)
{
  Tunnel *tunnel = g_new0 (Tunnel, 1);
  const char *command = g_getenv ("ASSAY_SSH_COMMAND");
  g_autofree char *why_not = NULL;
  g_autoptr(GError) local_error = NULL;

  g_mutex_init (&tunnel->lock);
  g_cond_init (&tunnel->started);
  tunnel->docker_host = g_strdup (docker_host);
  if (!parse_host (docker_host, &tunnel->kind, &tunnel->host, &tunnel->port, &tunnel->user, &why_not))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "%s", why_not);
      goto failed;
    }
  if (tunnel->kind == TUNNEL_SSH)
    {
      if (command == NULL || command[0] == '\0')
        command = "ssh";
      if (!g_shell_parse_argv (command, NULL, &tunnel->ssh_command, &local_error))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "ASSAY_SSH_COMMAND: %s", local_error->message);
          goto failed;
        }
    }
  else if (tunnel->kind == TUNNEL_TLS && !tunnel_load_tls (tunnel, error))
    goto failed;

  tunnel->dir = g_dir_make_tmp ("assay-docker-XXXXXX", error);
  if (tunnel->dir == NULL)
    goto failed;
  tunnel->socket_path = g_build_filename (tunnel->dir, "engine.sock", NULL);
  tunnel->control_path = g_build_filename (tunnel->dir, "ssh.sock", NULL);
  tunnel->context = g_main_context_new ();
  tunnel->thread = g_thread_new ("assay-docker-tunnel", tunnel_thread, tunnel);
  g_mutex_lock (&tunnel->lock);
  while (!tunnel->ready)
    g_cond_wait (&tunnel->started, &tunnel->lock);
  g_mutex_unlock (&tunnel->lock);
  if (tunnel->start_error != NULL)
    {
      g_propagate_error (error, tunnel->start_error);
      tunnel->start_error = NULL;
      g_thread_join (tunnel->thread);
      g_rmdir (tunnel->dir);
      goto failed;
    }
  return tunnel;

failed:
  /* Only a tunnel that never started is freed; a started one lives as long as the process. */
  g_clear_object (&tunnel->certificate);
  g_clear_object (&tunnel->database);
  g_clear_pointer (&tunnel->context, g_main_context_unref);
  g_strfreev (tunnel->ssh_command);
  g_free (tunnel->socket_path);
  g_free (tunnel->control_path);
  g_free (tunnel->dir);
  g_free (tunnel->docker_host);
  g_free (tunnel->host);
  g_free (tunnel->user);
  g_mutex_clear (&tunnel->lock);
  g_cond_clear (&tunnel->started);
  g_free (tunnel);
  return NULL;
}

/* The socket folder goes with the process. */
static void
tunnels_remove_dirs (void)
{
  GHashTableIter iter;
  gpointer value;

  g_mutex_lock (&tunnels_lock);
  if (tunnels != NULL)
    {
      g_hash_table_iter_init (&iter, tunnels);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          Tunnel *tunnel = value;

          if (tunnel->kind == TUNNEL_SSH && g_file_test (tunnel->control_path, G_FILE_TEST_EXISTS))
            {
              g_autoptr(GPtrArray) argv = g_ptr_array_new ();

              for (guint i = 0; tunnel->ssh_command[i] != NULL; i++)
                g_ptr_array_add (argv, tunnel->ssh_command[i]);
              g_ptr_array_add (argv, "-o");
              g_ptr_array_add (argv, "BatchMode=yes");
              g_ptr_array_add (argv, "-S");
              g_ptr_array_add (argv, tunnel->control_path);
              g_ptr_array_add (argv, "-O");
              g_ptr_array_add (argv, "exit");
              g_ptr_array_add (argv, tunnel->host);
              g_ptr_array_add (argv, NULL);
              g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                            G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                            NULL, NULL, NULL, NULL, NULL, NULL);
              g_unlink (tunnel->control_path);
            }
          g_unlink (tunnel->socket_path);
          g_rmdir (tunnel->dir);
        }
    }
  g_mutex_unlock (&tunnels_lock);
}

char *
assay_docker_tunnel_get_socket (const char  *docker_host,
                                GError     **error)
{
  Tunnel *tunnel;
  char *path = NULL;

  g_return_val_if_fail (docker_host != NULL, NULL);

  g_mutex_lock (&tunnels_lock);
  if (tunnels == NULL)
    {
      tunnels = g_hash_table_new (g_str_hash, g_str_equal);
      atexit (tunnels_remove_dirs);
    }
  tunnel = g_hash_table_lookup (tunnels, docker_host);
  if (tunnel == NULL)
    {
      tunnel = tunnel_new (docker_host, error);
      if (tunnel != NULL)
        g_hash_table_insert (tunnels, tunnel->docker_host, tunnel);
    }
  if (tunnel != NULL)
    path = g_strdup (tunnel->socket_path);
  g_mutex_unlock (&tunnels_lock);
  return path;
}

char *
assay_docker_tunnel_last_error (const char *docker_host)
{
  Tunnel *tunnel;
  char *message = NULL;

  g_return_val_if_fail (docker_host != NULL, NULL);

  g_mutex_lock (&tunnels_lock);
  tunnel = tunnels != NULL ? g_hash_table_lookup (tunnels, docker_host) : NULL;
  if (tunnel != NULL)
    {
      g_mutex_lock (&tunnel->lock);
      message = g_strdup (tunnel->last_error);
      g_mutex_unlock (&tunnel->lock);
    }
  g_mutex_unlock (&tunnels_lock);
  return message;
}
