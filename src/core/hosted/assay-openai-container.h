/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* OpenAI's Containers API, where the Responses API's code_interpreter tool runs the model's
 * code: a container made for a session (POST /containers, expiring after some minutes
 * without use), the session's datasets uploaded into it (POST /containers/{id}/files,
 * multipart "file", landing in /mnt/data), the files its code wrote fetched back
 * (GET /containers/{id}/files/{file_id}/content), and the container removed when the
 * session ends (DELETE /containers/{id}).
 *
 * Every call blocks: call them from a worker (or the CLI). 429, 408, 409 and 5xx are
 * retried as the model transport retries them (assay-llm-http.h: the server's Retry-After,
 * else a doubling wait; ASSAY_LLM_RETRY_SCALE shortens it for tests). The key goes in the
 * Authorization header only, never into an error message. */

#define ASSAY_HOSTED_ERROR (assay_hosted_error_quark ())
GQuark assay_hosted_error_quark (void);

typedef enum
{
  ASSAY_HOSTED_ERROR_EXPIRED,    /* the container expired or is gone: make a new one */
  ASSAY_HOSTED_ERROR_TOO_LARGE,  /* a file over the size Assay accepts */
  ASSAY_HOSTED_ERROR_AUTH,       /* 401, 403 */
  ASSAY_HOSTED_ERROR_FAILED,     /* any other refusal, with the server's reason */
  ASSAY_HOSTED_ERROR_NETWORK,    /* could not connect, or cut, after the retries */
} AssayHostedError;

/* How long a container lives without use (the Containers API's expires_after). */
#define ASSAY_OPENAI_CONTAINER_MINUTES 20
/* The largest file fetched back from a container. */
#define ASSAY_OPENAI_CONTAINER_MAX_FILE (64 * 1024 * 1024)

typedef struct _AssayOpenaiContainer AssayOpenaiContainer;

/* BASE_URL like "https://api.openai.com/v1" (NULL: that). */
AssayOpenaiContainer *assay_openai_container_new      (const char            *base_url,
                                                       const char            *api_key);
AssayOpenaiContainer *assay_openai_container_ref      (AssayOpenaiContainer  *self);
void                  assay_openai_container_unref    (AssayOpenaiContainer  *self);
/* The container's id ("cntr_…"), NULL before create. */
const char           *assay_openai_container_get_id   (AssayOpenaiContainer  *self);
/* Makes a new container named NAME (forgetting the one before). */
gboolean              assay_openai_container_create   (AssayOpenaiContainer  *self,
                                                       const char            *name,
                                                       GCancellable          *cancellable,
                                                       GError               **error);
/* Uploads the file at PATH as NAME (what the code sees in /mnt/data); its file id in FILE_ID. */
gboolean              assay_openai_container_upload   (AssayOpenaiContainer  *self,
                                                       const char            *path,
                                                       const char            *name,
                                                       char                 **file_id,
                                                       GCancellable          *cancellable,
                                                       GError               **error);
/* The content of FILE_ID of CONTAINER_ID (NULL: this one), at most MAX_BYTES (TOO_LARGE). */
GBytes               *assay_openai_container_download (AssayOpenaiContainer  *self,
                                                       const char            *container_id,
                                                       const char            *file_id,
                                                       gsize                  max_bytes,
                                                       GCancellable          *cancellable,
                                                       GError               **error);
/* Removes the container (a container already gone is not an error). */
gboolean              assay_openai_container_delete   (AssayOpenaiContainer  *self,
                                                       GCancellable          *cancellable,
                                                       GError               **error);

/* A file name from a server made safe for a session's artifacts folder: its last path part,
 * control characters and separators replaced, at most 120 bytes of valid UTF-8, never "."
 * or ".." or hidden; FALLBACK when nothing is left. */
char                 *assay_openai_container_safe_name (const char           *name,
                                                        const char           *fallback);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AssayOpenaiContainer, assay_openai_container_unref)

G_END_DECLS
