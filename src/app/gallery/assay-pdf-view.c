/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <glib/gi18n.h>

#include <math.h>

#include "assay-app-types.h"
#include "assay-pdf-view.h"
#include "assay-zoom-canvas.h"

#define MAX_PDF_BYTES (512 * 1024 * 1024)
#define ZOOM_STEP 1.25
#define POINTS_TO_PIXELS (96.0 / 72.0)
/* A page is never rendered bigger than this on either side. */
#define MAX_RENDER_SIZE 8192

/* A document shared by the view and the workers rendering from it. Poppler is not
 * thread-safe, so every use holds the lock. */
typedef struct
{
  PopplerDocument *document;
  GMutex           lock;
} SharedDocument;

static void
assay_pdf_view_shared_document_clear (gpointer data)
{
  SharedDocument *shared = data;

  g_clear_object (&shared->document);
  g_mutex_clear (&shared->lock);
}

static SharedDocument *
assay_pdf_view_shared_document_ref (SharedDocument *shared)
{
  return g_atomic_rc_box_acquire (shared);
}

static void
assay_pdf_view_shared_document_unref (SharedDocument *shared)
{
  g_atomic_rc_box_release_full (shared, assay_pdf_view_shared_document_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SharedDocument, assay_pdf_view_shared_document_unref)

typedef struct
{
  SharedDocument *shared;
  GArray         *page_sizes;   /* graphene_size_t, in points */
} LoadResult;

static void
assay_pdf_view_load_result_free (LoadResult *result)
{
  g_clear_pointer (&result->shared, assay_pdf_view_shared_document_unref);
  g_clear_pointer (&result->page_sizes, g_array_unref);
  g_free (result);
}

typedef struct
{
  SharedDocument *shared;
  int             page;
  int             width;
  int             height;
  char           *key;
} RenderJob;

static void
assay_pdf_view_render_job_free (RenderJob *job)
{
  g_clear_pointer (&job->shared, assay_pdf_view_shared_document_unref);
  g_free (job->key);
  g_free (job);
}

struct _AssayPdfView
{
  GtkWidget          parent_instance;

  GtkScrolledWindow *scroller;
  AssayZoomCanvas   *canvas;

  AssayArtifactItem *item;
  GCancellable      *cancellable;         /* the document and everything about it */
  GCancellable      *render_cancellable;  /* the render in flight */
  SharedDocument    *shared;
  GArray            *page_sizes;
  GHashTable        *cache;               /* "page:width" → GdkTexture */
  GQueue             cache_order;         /* keys, least recently used first */
  char              *shown_key;
  GdkTexture        *texture;
  char              *error;
  gboolean           loading;

  int                page;
  double             zoom;
};

G_DEFINE_FINAL_TYPE (AssayPdfView, assay_pdf_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  PROP_LOADING,
  PROP_ERROR,
  PROP_TEXTURE,
  PROP_N_PAGES,
  PROP_PAGE,
  PROP_ZOOM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GdkTexture *
assay_pdf_render_page (PopplerPage   *page,
                       int            width,
                       int            height,
                       GCancellable  *cancellable,
                       GError       **error)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  double page_width, page_height;
  GBytes *bytes;
  GdkTexture *texture;
  int stride;

  poppler_page_get_size (page, &page_width, &page_height);
  if (width <= 0 || height <= 0 || page_width <= 0 || page_height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The page has no size"));
      return NULL;
    }

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, _("Not enough memory to render the page"));
      return NULL;
    }
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_scale (cr, width / page_width, height / page_height);
  poppler_page_render (page, cr);
  cairo_destroy (cr);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      cairo_surface_destroy (surface);
      return NULL;
    }

  /* The texture takes the surface's pixels as they are: cairo's ARGB32 is
   * GDK_MEMORY_DEFAULT, and the bytes keep the surface alive. */
  cairo_surface_flush (surface);
  stride = cairo_image_surface_get_stride (surface);
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) stride * height,
                                      (GDestroyNotify) cairo_surface_destroy, surface);
  texture = gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes, stride);
  g_bytes_unref (bytes);
  return texture;
}

static void
assay_pdf_view_set_loading (AssayPdfView *self,
                            gboolean      loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
assay_pdf_view_set_error (AssayPdfView *self,
                          const char   *error)
{
  if (g_strcmp0 (self->error, error) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (error);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
assay_pdf_view_show_texture (AssayPdfView *self,
                             GdkTexture   *texture)
{
  if (!g_set_object (&self->texture, texture))
    return;
  if (texture != NULL)
    assay_zoom_canvas_set_texture (self->canvas, texture);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXTURE]);
}

static void
assay_pdf_view_cache_insert (AssayPdfView *self,
                             const char   *key,
                             GdkTexture   *texture)
{
  if (g_hash_table_contains (self->cache, key))
    return;
  g_hash_table_insert (self->cache, g_strdup (key), g_object_ref (texture));
  g_queue_push_tail (&self->cache_order, g_strdup (key));
  while (g_queue_get_length (&self->cache_order) > ASSAY_PDF_VIEW_CACHE_SIZE)
    {
      g_autofree char *oldest = g_queue_pop_head (&self->cache_order);

      g_hash_table_remove (self->cache, oldest);
    }
}

static GdkTexture *
assay_pdf_view_cache_lookup (AssayPdfView *self,
                             const char   *key)
{
  GdkTexture *texture = g_hash_table_lookup (self->cache, key);
  GList *link;

  if (texture == NULL)
    return NULL;
  /* Most recently used now. */
  link = g_queue_find_custom (&self->cache_order, key, (GCompareFunc) g_strcmp0);
  g_queue_unlink (&self->cache_order, link);
  g_queue_push_tail_link (&self->cache_order, link);
  return texture;
}

static void
assay_pdf_view_cache_clear (AssayPdfView *self)
{
  g_hash_table_remove_all (self->cache);
  g_queue_clear_full (&self->cache_order, g_free);
}

static void
assay_pdf_view_render_worker (GTask        *task,
                              gpointer      source_object,
                              gpointer      task_data,
                              GCancellable *cancellable)
{
  RenderJob *job = task_data;
  PopplerPage *page;
  GdkTexture *texture;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  g_mutex_lock (&job->shared->lock);
  page = poppler_document_get_page (job->shared->document, job->page);
  if (page == NULL)
    {
      g_mutex_unlock (&job->shared->lock);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("The document has no page %d"), job->page + 1);
      return;
    }
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_clear_object (&page);
      g_mutex_unlock (&job->shared->lock);
      g_task_return_error_if_cancelled (task);
      return;
    }
  texture = assay_pdf_render_page (page, job->width, job->height, cancellable, &error);
  g_clear_object (&page);
  g_mutex_unlock (&job->shared->lock);

  if (texture == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, texture, g_object_unref);
}

/* SELF is not referenced by the task: dispose cancels it, and a cancelled task always
 * reports the cancellation, so SELF is only used when it is alive. */
static void
assay_pdf_view_render_done (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  AssayPdfView *self = user_data;
  RenderJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;

  texture = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  assay_pdf_view_set_loading (self, FALSE);
  if (texture == NULL)
    {
      assay_pdf_view_set_error (self, error->message);
      return;
    }
  assay_pdf_view_cache_insert (self, job->key, texture);
  if (g_strcmp0 (job->key, self->shown_key) == 0)
    assay_pdf_view_show_texture (self, texture);
}

static void
assay_pdf_view_request_render (AssayPdfView *self)
{
  const graphene_size_t *size;
  g_autoptr(GTask) task = NULL;
  GdkTexture *cached;
  RenderJob *job;
  int width, height, scale;

  if (self->shared == NULL || self->page_sizes->len == 0)
    return;

  size = &g_array_index (self->page_sizes, graphene_size_t, self->page);
  width = MAX (1, (int) round (size->width * POINTS_TO_PIXELS * self->zoom));
  height = MAX (1, (int) round (size->height * POINTS_TO_PIXELS * self->zoom));
  assay_zoom_canvas_set_fit (self->canvas, FALSE);
  assay_zoom_canvas_set_size (self->canvas, width, height);

  scale = MAX (1, gtk_widget_get_scale_factor (GTK_WIDGET (self)));
  width = MIN (width * scale, MAX_RENDER_SIZE);
  height = MIN (height * scale, MAX_RENDER_SIZE);

  g_free (self->shown_key);
  self->shown_key = g_strdup_printf ("%d:%d", self->page, width);

  g_cancellable_cancel (self->render_cancellable);
  g_clear_object (&self->render_cancellable);

  cached = assay_pdf_view_cache_lookup (self, self->shown_key);
  if (cached != NULL)
    {
      assay_pdf_view_show_texture (self, cached);
      assay_pdf_view_set_loading (self, FALSE);
      return;
    }

  job = g_new0 (RenderJob, 1);
  job->shared = assay_pdf_view_shared_document_ref (self->shared);
  job->page = self->page;
  job->width = width;
  job->height = height;
  job->key = g_strdup (self->shown_key);

  self->render_cancellable = g_cancellable_new ();
  assay_pdf_view_set_loading (self, TRUE);
  task = g_task_new (NULL, self->render_cancellable, assay_pdf_view_render_done, self);
  g_task_set_source_tag (task, assay_pdf_view_request_render);
  g_task_set_task_data (task, job, (GDestroyNotify) assay_pdf_view_render_job_free);
  g_task_run_in_thread (task, assay_pdf_view_render_worker);
}

static void
assay_pdf_view_load_worker (GTask        *task,
                            gpointer      source_object,
                            gpointer      task_data,
                            GCancellable *cancellable)
{
  AssayArtifactItem *item = task_data;
  g_autoptr(GBytes) bytes = NULL;
  PopplerDocument *document;
  LoadResult *result;
  GError *error = NULL;
  int n_pages;

  bytes = assay_artifact_item_load_bytes (item, MAX_PDF_BYTES, cancellable, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  document = poppler_document_new_from_bytes (bytes, NULL, &error);
  if (document == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (document);
      return;
    }

  n_pages = poppler_document_get_n_pages (document);
  if (n_pages <= 0)
    {
      g_object_unref (document);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                               _("The document has no pages"));
      return;
    }

  result = g_new0 (LoadResult, 1);
  result->page_sizes = g_array_sized_new (FALSE, FALSE, sizeof (graphene_size_t), n_pages);
  for (int i = 0; i < n_pages; i++)
    {
      PopplerPage *page = poppler_document_get_page (document, i);
      graphene_size_t size = GRAPHENE_SIZE_INIT (612, 792);   /* Letter, for a page poppler cannot open */
      double width, height;

      if (page != NULL)
        {
          poppler_page_get_size (page, &width, &height);
          if (width > 0 && height > 0)
            size = GRAPHENE_SIZE_INIT (width, height);
          g_object_unref (page);
        }
      g_array_append_val (result->page_sizes, size);
    }
  result->shared = g_atomic_rc_box_new0 (SharedDocument);
  g_mutex_init (&result->shared->lock);
  result->shared->document = document;
  g_task_return_pointer (task, result, (GDestroyNotify) assay_pdf_view_load_result_free);
}

static void
assay_pdf_view_load_done (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  AssayPdfView *self = user_data;
  LoadResult *loaded;
  g_autoptr(GError) error = NULL;

  loaded = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (loaded == NULL)
    {
      assay_pdf_view_set_loading (self, FALSE);
      assay_pdf_view_set_error (self, error->message);
      return;
    }

  self->shared = g_steal_pointer (&loaded->shared);
  g_clear_pointer (&self->page_sizes, g_array_unref);
  self->page_sizes = g_steal_pointer (&loaded->page_sizes);
  assay_pdf_view_load_result_free (loaded);
  self->page = 0;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PAGES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAGE]);
  assay_pdf_view_request_render (self);
}

static void
assay_pdf_view_clear_document (AssayPdfView *self)
{
  g_cancellable_cancel (self->render_cancellable);
  g_clear_object (&self->render_cancellable);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->shared, assay_pdf_view_shared_document_unref);
  g_clear_pointer (&self->shown_key, g_free);
  if (self->page_sizes != NULL)
    g_array_set_size (self->page_sizes, 0);
  assay_pdf_view_cache_clear (self);
  g_clear_object (&self->texture);
}

void
assay_pdf_view_set_item (AssayPdfView      *self,
                         AssayArtifactItem *item)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));
  g_return_if_fail (item == NULL || ASSAY_IS_ARTIFACT_ITEM (item));

  if (self->item == item)
    return;

  assay_pdf_view_clear_document (self);
  assay_zoom_canvas_set_texture (self->canvas, NULL);
  g_set_object (&self->item, item);
  self->page = 0;
  assay_pdf_view_set_error (self, NULL);
  assay_pdf_view_set_loading (self, item != NULL);

  if (item != NULL)
    {
      self->cancellable = g_cancellable_new ();
      task = g_task_new (NULL, self->cancellable, assay_pdf_view_load_done, self);
      g_task_set_source_tag (task, assay_pdf_view_set_item);
      g_task_set_task_data (task, g_object_ref (item), g_object_unref);
      g_task_run_in_thread (task, assay_pdf_view_load_worker);
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_PAGES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAGE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXTURE]);
}

static void
assay_pdf_view_dispose (GObject *object)
{
  AssayPdfView *self = ASSAY_PDF_VIEW (object);

  assay_pdf_view_clear_document (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_PDF_VIEW);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->item);
  g_clear_pointer (&self->error, g_free);

  G_OBJECT_CLASS (assay_pdf_view_parent_class)->dispose (object);
}

static void
assay_pdf_view_finalize (GObject *object)
{
  AssayPdfView *self = ASSAY_PDF_VIEW (object);

  g_clear_pointer (&self->page_sizes, g_array_unref);
  g_clear_pointer (&self->cache, g_hash_table_unref);

  G_OBJECT_CLASS (assay_pdf_view_parent_class)->finalize (object);
}

static void
assay_pdf_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  AssayPdfView *self = ASSAY_PDF_VIEW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_TEXTURE:
      g_value_set_object (value, self->texture);
      break;
    case PROP_N_PAGES:
      g_value_set_int (value, assay_pdf_view_get_n_pages (self));
      break;
    case PROP_PAGE:
      g_value_set_int (value, self->page);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_pdf_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  AssayPdfView *self = ASSAY_PDF_VIEW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      assay_pdf_view_set_item (self, g_value_get_object (value));
      break;
    case PROP_PAGE:
      assay_pdf_view_set_page (self, g_value_get_int (value));
      break;
    case PROP_ZOOM:
      assay_pdf_view_set_zoom (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_pdf_view_class_init (AssayPdfViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags read_only = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags read_write = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_pdf_view_dispose;
  object_class->finalize = assay_pdf_view_finalize;
  object_class->get_property = assay_pdf_view_get_property;
  object_class->set_property = assay_pdf_view_set_property;

  properties[PROP_ITEM] = g_param_spec_object ("item", NULL, NULL, ASSAY_TYPE_ARTIFACT_ITEM, read_write);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, read_only);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL, read_only);
  properties[PROP_TEXTURE] = g_param_spec_object ("texture", NULL, NULL, GDK_TYPE_TEXTURE, read_only);
  properties[PROP_N_PAGES] = g_param_spec_int ("n-pages", NULL, NULL, 0, G_MAXINT, 0, read_only);
  properties[PROP_PAGE] = g_param_spec_int ("page", NULL, NULL, 0, G_MAXINT, 0, read_write);
  properties[PROP_ZOOM] = g_param_spec_double ("zoom", NULL, NULL, ASSAY_PDF_VIEW_MIN_ZOOM,
                                               ASSAY_PDF_VIEW_MAX_ZOOM, 1.0, read_write);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (ASSAY_TYPE_ZOOM_CANVAS);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-pdf-view.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayPdfView, scroller);
  gtk_widget_class_bind_template_child (widget_class, AssayPdfView, canvas);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-pdf-view");
}

/* Moved to a monitor of another scale: render sharp for it. */
static void
assay_pdf_view_scale_factor_changed_cb (AssayPdfView *self)
{
  assay_pdf_view_request_render (self);
}

static void
assay_pdf_view_init (AssayPdfView *self)
{
  self->zoom = 1.0;
  self->page_sizes = g_array_new (FALSE, FALSE, sizeof (graphene_size_t));
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_queue_init (&self->cache_order);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_scrolled_window_set_policy (self->scroller, GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC);
  g_signal_connect (self, "notify::scale-factor", G_CALLBACK (assay_pdf_view_scale_factor_changed_cb), NULL);
}

GtkWidget *
assay_pdf_view_new (void)
{
  return g_object_new (ASSAY_TYPE_PDF_VIEW, NULL);
}

AssayArtifactItem *
assay_pdf_view_get_item (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), NULL);
  return self->item;
}

gboolean
assay_pdf_view_get_loading (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), FALSE);
  return self->loading;
}

const char *
assay_pdf_view_get_error (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), NULL);
  return self->error;
}

GdkTexture *
assay_pdf_view_get_texture (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), NULL);
  return self->texture;
}

PopplerDocument *
assay_pdf_view_get_document (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), NULL);
  return self->shared != NULL ? self->shared->document : NULL;
}

int
assay_pdf_view_get_n_pages (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), 0);
  return self->page_sizes->len;
}

int
assay_pdf_view_get_page (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), 0);
  return self->page;
}

void
assay_pdf_view_set_page (AssayPdfView *self,
                         int           page)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));

  page = CLAMP (page, 0, MAX (0, (int) self->page_sizes->len - 1));
  if (self->page == page)
    return;
  self->page = page;
  assay_pdf_view_request_render (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAGE]);
}

void
assay_pdf_view_next_page (AssayPdfView *self)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));
  assay_pdf_view_set_page (self, self->page + 1);
}

void
assay_pdf_view_previous_page (AssayPdfView *self)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));
  assay_pdf_view_set_page (self, self->page - 1);
}

double
assay_pdf_view_get_zoom (AssayPdfView *self)
{
  g_return_val_if_fail (ASSAY_IS_PDF_VIEW (self), 1.0);
  return self->zoom;
}

void
assay_pdf_view_set_zoom (AssayPdfView *self,
                         double        zoom)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));

  zoom = CLAMP (zoom, ASSAY_PDF_VIEW_MIN_ZOOM, ASSAY_PDF_VIEW_MAX_ZOOM);
  if (fabs (self->zoom - zoom) < 1e-9)
    return;
  self->zoom = zoom;
  assay_pdf_view_request_render (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
assay_pdf_view_zoom_in (AssayPdfView *self)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));
  assay_pdf_view_set_zoom (self, self->zoom * ZOOM_STEP);
}

void
assay_pdf_view_zoom_out (AssayPdfView *self)
{
  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));
  assay_pdf_view_set_zoom (self, self->zoom / ZOOM_STEP);
}

void
assay_pdf_view_zoom_to_fit (AssayPdfView *self)
{
  const graphene_size_t *size;
  int width;

  g_return_if_fail (ASSAY_IS_PDF_VIEW (self));

  width = gtk_widget_get_width (GTK_WIDGET (self));
  if (self->page_sizes->len == 0 || width <= 0)
    return;
  size = &g_array_index (self->page_sizes, graphene_size_t, self->page);
  /* Room for a vertical scrollbar. */
  assay_pdf_view_set_zoom (self, MAX (width - 24, 50) / (size->width * POINTS_TO_PIXELS));
}
