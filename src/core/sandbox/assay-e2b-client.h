/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The ports E2B's SDKs reach inside a sandbox: envd (files, processes) and the code
 * interpreter's HTTP server in front of its Jupyter kernel. */
#define ASSAY_E2B_ENVD_PORT        49983
#define ASSAY_E2B_INTERPRETER_PORT 49999
#define ASSAY_E2B_DEFAULT_TEMPLATE "code-interpreter-v1"

#define ASSAY_TYPE_E2B_CLIENT (assay_e2b_client_get_type ())

G_DECLARE_FINAL_TYPE (AssayE2bClient, assay_e2b_client, ASSAY, E2B_CLIENT, GObject)

/* E2B's REST control plane and a sandbox's envd and code interpreter, as the SDKs reach them
 * (e2b-dev/E2B packages/python-sdk/e2b/connection_config.py):
 * the API at $E2B_API_URL, else https://api.$E2B_DOMAIN (e2b.app unless set: a self-hosted
 * E2B has its own domain); a sandbox's port at https://PORT-ID.DOMAIN, or at $E2B_SANDBOX_URL
 * for every port when it is set (the SDKs' override, which the tests use for the local fake),
 * the sandbox named in the E2b-Sandbox-Id header either way. The key goes in X-API-Key, the
 * sandbox's envd access token in X-Access-Token; neither is ever logged or put in an error.
 * Every call blocks; ABORT (may be NULL) is polled during a transfer, and a non-zero value
 * ends it with G_IO_ERROR_CANCELLED. */
AssayE2bClient *assay_e2b_client_new            (const char      *api_key);
/* From the environment: E2B_API_KEY (NULL when unset), E2B_DOMAIN, E2B_API_URL,
 * E2B_SANDBOX_URL, E2B_TEMPLATE. */
AssayE2bClient *assay_e2b_client_new_from_env   (const char      *api_key);
/* The same with the window's settings first: DOMAIN and TEMPLATE_ID (NULL or "": the
 * environment's, else E2B's own). E2B_API_URL and E2B_SANDBOX_URL still apply (the tests). */
AssayE2bClient *assay_e2b_client_new_full       (const char      *api_key,
                                                 const char      *domain,
                                                 const char      *template_id);
gboolean        assay_e2b_client_has_key        (AssayE2bClient  *self);
const char     *assay_e2b_client_get_api_url    (AssayE2bClient  *self);
const char     *assay_e2b_client_get_template   (AssayE2bClient  *self);
char           *assay_e2b_client_dup_sandbox_url (AssayE2bClient *self,
                                                  const char     *sandbox_id,
                                                  const char     *domain,
                                                  guint           port);

/* The answer to one request. RETRY_AFTER is the seconds of a Retry-After header, else -1. */
typedef struct
{
  guint    status;
  GBytes  *body;
  gint64   retry_after;
} AssayE2bResponse;

void assay_e2b_response_clear (AssayE2bResponse *response);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AssayE2bResponse, assay_e2b_response_clear)

/* A request to the control plane (PATH from "/sandboxes" on) with the key. A JSON BODY may be
 * NULL. FALSE only when no answer came (the network); an HTTP error is a response. */
gboolean assay_e2b_client_api_request (AssayE2bClient    *self,
                                       const char        *method,
                                       const char        *path,
                                       const char        *body,
                                       AssayE2bResponse  *response,
                                       GCancellable      *cancellable,
                                       GError           **error);

/* A sandbox: where it answers and with which token. */
typedef struct
{
  char *id;
  char *domain;        /* NULL: the client's */
  char *access_token;  /* envd's, may be NULL */
} AssayE2bSandbox;

void assay_e2b_sandbox_free (AssayE2bSandbox *sandbox);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayE2bSandbox, assay_e2b_sandbox_free)

/* POST /sandboxes {templateID, timeout, metadata}: a 429 is waited out (its Retry-After,
 * at most 30 s each time, three times), then refused with the reason. */
AssayE2bSandbox *assay_e2b_client_create_sandbox (AssayE2bClient  *self,
                                                  guint            timeout_s,
                                                  JsonObject      *metadata,
                                                  GCancellable    *cancellable,
                                                  GError         **error);
/* DELETE /sandboxes/{id}; a sandbox already gone (404) is fine. */
gboolean assay_e2b_client_kill_sandbox   (AssayE2bClient  *self,
                                          const char      *sandbox_id,
                                          GError         **error);
/* POST /sandboxes/{id}/timeout: the sandbox lives TIMEOUT_S more seconds from now. */
gboolean assay_e2b_client_set_timeout    (AssayE2bClient  *self,
                                          const char      *sandbox_id,
                                          guint            timeout_s,
                                          GError         **error);
/* POST /sandboxes/{id}/pause, and /connect {timeout} to resume it (or find it running), as
 * the SDKs' Sandbox.connect does (the older /resume answers the same for a paused one only):
 * the sandbox with its envd token, or G_IO_ERROR_NOT_FOUND when E2B no longer has it. */
gboolean         assay_e2b_client_pause_sandbox  (AssayE2bClient  *self,
                                                  const char      *sandbox_id,
                                                  GError         **error);
AssayE2bSandbox *assay_e2b_client_resume_sandbox (AssayE2bClient  *self,
                                                  const char      *sandbox_id,
                                                  guint            timeout_s,
                                                  GError         **error);
/* Letters, digits, "-" and "_", at most 128: an id safe in a path and a host name. */
gboolean         assay_e2b_sandbox_id_is_valid   (const char      *id);
/* GET /sandboxes/{id}: TRUE when it still exists; FALSE with G_IO_ERROR_NOT_FOUND when it is
 * gone (expired or killed), other errors when that cannot be told. */
gboolean assay_e2b_client_sandbox_exists (AssayE2bClient  *self,
                                          const char      *sandbox_id,
                                          GError         **error);

/* A request to PORT of the sandbox (PATH with its query), with its headers. WRITE, when not
 * NULL, receives the body as it streams (then RESPONSE's body stays empty) and returns FALSE
 * to stop. */
typedef gboolean (*AssayE2bWriteFunc) (const char *data,
                                       gsize       len,
                                       gpointer    user_data);

gboolean assay_e2b_client_sandbox_request (AssayE2bClient         *self,
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
                                           GError                **error);

/* envd: POST /files?path=PATH&username=root, octet-stream (as root, so that a folder such as
 * /data can be made); GET /files?path= at most MAX_BYTES (TRUNCATED set when the file is
 * longer); the Connect RPC filesystem.Filesystem/ListDir in its JSON form. */
gboolean assay_e2b_client_upload   (AssayE2bClient          *self,
                                    const AssayE2bSandbox   *sandbox,
                                    const char              *path,
                                    GBytes                  *data,
                                    GError                 **error);
GBytes  *assay_e2b_client_download (AssayE2bClient          *self,
                                    const AssayE2bSandbox   *sandbox,
                                    const char              *path,
                                    guint64                  max_bytes,
                                    gboolean                *truncated,
                                    GError                 **error);
/* The entries under PATH to DEPTH levels: a JsonArray of EntryInfo objects (owned). */
JsonArray *assay_e2b_client_list_dir (AssayE2bClient        *self,
                                      const AssayE2bSandbox *sandbox,
                                      const char            *path,
                                      guint                  depth,
                                      GError               **error);

/* "E2B answered 429: …" from an error body ({"code", "message"}), capped and escaped. */
char *assay_e2b_describe_error (const AssayE2bResponse *response);

G_END_DECLS
