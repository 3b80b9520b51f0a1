/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>
#include <poppler.h>

#include "assay-app-types.h"
#include "assay-artifact-dnd.h"
#include "assay-artifact-gallery.h"
#include "assay-pdf-view.h"

/* Bigger files get an icon rather than a thumbnail. */
#define MAX_THUMBNAIL_SOURCE_BYTES (64 * 1024 * 1024)
#define RENDER_WIDTH  (2 * ASSAY_ARTIFACT_GALLERY_THUMBNAIL_WIDTH)
#define RENDER_HEIGHT (2 * ASSAY_ARTIFACT_GALLERY_THUMBNAIL_HEIGHT)

struct _AssayArtifactGallery
{
  GtkWidget           parent_instance;

  GtkStack           *stack;
  AdwStatusPage      *empty_page;
  GtkGridView        *grid;
  GtkToggleButton    *filter_all;
  GtkToggleButton    *filter_figures;
  GtkToggleButton    *filter_tables;
  GtkToggleButton    *filter_documents;
  GtkToggleButton    *filter_other;
  GtkDropDown        *filter_dropdown;  /* the same filters where the buttons do not fit */

  AssayArtifactList  *model;
  GtkFilterListModel *filtered;
  GtkCustomFilter    *filter;
  AssayGalleryFilter  filter_kind;

  GCancellable       *cancellable;
  GHashTable         *thumbnails;   /* AssayArtifactItem → GdkTexture */
  GHashTable         *pending;      /* AssayArtifactItem being thumbnailed */
  GHashTable         *failed;       /* AssayArtifactItem that gets its icon */
  GHashTable         *tiles;        /* AssayArtifactItem → its tile while bound (not owned) */
};

G_DEFINE_FINAL_TYPE (AssayArtifactGallery, assay_artifact_gallery, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_FILTER,
  N_PROPS
};

enum {
  ARTIFACT_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- thumbnails, made in workers --------------------------------------------------------- */

static gboolean
assay_artifact_gallery_has_thumbnail (AssayArtifactItem *item)
{
  switch (assay_artifact_item_get_kind (item))
    {
    case ASSAY_ARTIFACT_KIND_FIGURE:
      return assay_artifact_item_get_bytes (item) <= MAX_THUMBNAIL_SOURCE_BYTES;
    case ASSAY_ARTIFACT_KIND_DOCUMENT:
      return g_strcmp0 (assay_artifact_item_get_mime (item), "application/pdf") == 0;
    case ASSAY_ARTIFACT_KIND_TABLE:
    case ASSAY_ARTIFACT_KIND_OTHER:
    default:
      return FALSE;
    }
}

static GdkTexture *
assay_artifact_gallery_thumbnail_of_pdf (AssayArtifactItem  *item,
                                         GCancellable       *cancellable,
                                         GError            **error)
{
  g_autoptr(GBytes) bytes = NULL;
  PopplerDocument *document;
  PopplerPage *page;
  GdkTexture *texture = NULL;
  double width, height, scale;

  bytes = assay_artifact_item_load_bytes (item, 8 * MAX_THUMBNAIL_SOURCE_BYTES, cancellable, error);
  if (bytes == NULL)
    return NULL;
  document = poppler_document_new_from_bytes (bytes, NULL, error);
  if (document == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_object_unref (document);
      return NULL;
    }
  page = poppler_document_get_page (document, 0);
  if (page == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The document has no pages"));
  else
    {
      poppler_page_get_size (page, &width, &height);
      scale = width > 0 && height > 0 ? MIN (RENDER_WIDTH / width, RENDER_HEIGHT / height) : 1;
      texture = assay_pdf_render_page (page, MAX (1, (int) (width * scale)),
                                       MAX (1, (int) (height * scale)), cancellable, error);
      g_object_unref (page);
    }
  g_object_unref (document);
  return texture;
}

static void
assay_artifact_gallery_thumbnail_worker (GTask        *task,
                                         gpointer      source_object,
                                         gpointer      task_data,
                                         GCancellable *cancellable)
{
  AssayArtifactItem *item = task_data;
  GdkTexture *texture = NULL;
  GError *error = NULL;

  if (assay_artifact_item_get_kind (item) == ASSAY_ARTIFACT_KIND_DOCUMENT)
    texture = assay_artifact_gallery_thumbnail_of_pdf (item, cancellable, &error);
  else
    {
      g_autoptr(GInputStream) stream = NULL;
      g_autoptr(GdkPixbuf) pixbuf = NULL;

      stream = assay_artifact_item_open (item, cancellable, &error);
      if (stream != NULL)
        pixbuf = gdk_pixbuf_new_from_stream_at_scale (stream, RENDER_WIDTH, RENDER_HEIGHT, TRUE,
                                                      cancellable, &error);
      if (pixbuf != NULL && !g_cancellable_set_error_if_cancelled (cancellable, &error))
        texture = gdk_texture_new_for_pixbuf (pixbuf);
    }

  if (texture == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, texture, g_object_unref);
}

static void
assay_artifact_gallery_show_in_tile (GtkWidget         *tile,
                                     AssayArtifactItem *item,
                                     GdkTexture        *texture)
{
  GtkPicture *picture = g_object_get_data (G_OBJECT (tile), "picture");
  GtkImage *icon = g_object_get_data (G_OBJECT (tile), "icon");

  gtk_picture_set_paintable (picture, GDK_PAINTABLE (texture));
  gtk_widget_set_visible (GTK_WIDGET (picture), texture != NULL);
  gtk_widget_set_visible (GTK_WIDGET (icon), texture == NULL);
  if (texture == NULL && item != NULL)
    {
      g_autofree char *icon_name = assay_artifact_icon_name (item);

      gtk_image_set_from_icon_name (icon, icon_name);
    }
}

/* SELF is not referenced by the task: dispose and set_model cancel it, and a cancelled
 * task always reports the cancellation, so SELF is only used when it is alive. */
static void
assay_artifact_gallery_thumbnail_done (GObject      *source,
                                       GAsyncResult *result,
                                       gpointer      user_data)
{
  AssayArtifactGallery *self = user_data;
  AssayArtifactItem *item = g_task_get_task_data (G_TASK (result));
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *tile;

  texture = g_task_propagate_pointer (G_TASK (result), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  g_hash_table_remove (self->pending, item);
  if (texture == NULL)
    {
      g_debug ("No thumbnail for “%s”: %s", assay_artifact_item_get_name (item), error->message);
      g_hash_table_add (self->failed, g_object_ref (item));
      return;
    }
  g_hash_table_insert (self->thumbnails, g_object_ref (item), g_object_ref (texture));
  tile = g_hash_table_lookup (self->tiles, item);
  if (tile != NULL)
    assay_artifact_gallery_show_in_tile (tile, item, texture);
}

static void
assay_artifact_gallery_request_thumbnail (AssayArtifactGallery *self,
                                          AssayArtifactItem    *item)
{
  g_autoptr(GTask) task = NULL;

  if (!assay_artifact_gallery_has_thumbnail (item) ||
      g_hash_table_contains (self->thumbnails, item) ||
      g_hash_table_contains (self->pending, item) ||
      g_hash_table_contains (self->failed, item))
    return;

  g_hash_table_add (self->pending, g_object_ref (item));
  task = g_task_new (NULL, self->cancellable, assay_artifact_gallery_thumbnail_done, self);
  g_task_set_source_tag (task, assay_artifact_gallery_request_thumbnail);
  g_task_set_task_data (task, g_object_ref (item), g_object_unref);
  g_task_run_in_thread (task, assay_artifact_gallery_thumbnail_worker);
}

static void
assay_artifact_gallery_forget_thumbnails (AssayArtifactGallery *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_hash_table_remove_all (self->thumbnails);
  g_hash_table_remove_all (self->pending);
  g_hash_table_remove_all (self->failed);
}

/* ---- tiles ------------------------------------------------------------------------------- */

static const char *
assay_artifact_gallery_kind_label (AssayArtifactKind kind)
{
  switch (kind)
    {
    case ASSAY_ARTIFACT_KIND_FIGURE:
      return _("Figure");
    case ASSAY_ARTIFACT_KIND_TABLE:
      return _("Table");
    case ASSAY_ARTIFACT_KIND_DOCUMENT:
      return _("Document");
    case ASSAY_ARTIFACT_KIND_OTHER:
    default:
      return _("File");
    }
}

static GdkContentProvider *
assay_artifact_gallery_tile_drag_prepare_cb (GtkDragSource *source,
                                             double         x,
                                             double         y,
                                             GtkWidget     *tile)
{
  AssayArtifactItem *item = g_object_get_data (G_OBJECT (tile), "item");

  if (item == NULL)
    return NULL;
  return assay_artifact_content_provider_new (item);
}

static void
assay_artifact_gallery_tile_drag_begin_cb (GtkDragSource *source,
                                           GdkDrag       *drag,
                                           GtkWidget     *tile)
{
  GtkPicture *picture = g_object_get_data (G_OBJECT (tile), "picture");
  GdkPaintable *paintable = gtk_picture_get_paintable (picture);

  if (paintable != NULL)
    gtk_drag_source_set_icon (source, paintable, 0, 0);
}

static void
assay_artifact_gallery_setup_tile (GtkSignalListItemFactory *factory,
                                   GtkListItem              *list_item,
                                   AssayArtifactGallery     *self)
{
  GtkWidget *tile = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *picture = gtk_picture_new ();
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *caption = gtk_label_new (NULL);
  GtkDragSource *source;

  gtk_widget_set_margin_start (tile, 6);
  gtk_widget_set_margin_end (tile, 6);
  gtk_widget_set_margin_top (tile, 6);
  gtk_widget_set_margin_bottom (tile, 6);

  gtk_widget_set_size_request (frame, ASSAY_ARTIFACT_GALLERY_THUMBNAIL_WIDTH,
                               ASSAY_ARTIFACT_GALLERY_THUMBNAIL_HEIGHT);
  gtk_widget_add_css_class (frame, "card");
  gtk_widget_set_overflow (frame, GTK_OVERFLOW_HIDDEN);
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_widget_set_vexpand (picture, TRUE);
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 64);
  gtk_widget_set_vexpand (icon, TRUE);
  gtk_widget_add_css_class (icon, "dim-label");
  gtk_box_append (GTK_BOX (frame), picture);
  gtk_box_append (GTK_BOX (frame), icon);

  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_max_width_chars (GTK_LABEL (name), 24);
  gtk_label_set_ellipsize (GTK_LABEL (caption), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (caption, "caption");
  gtk_widget_add_css_class (caption, "dim-label");

  gtk_box_append (GTK_BOX (tile), frame);
  gtk_box_append (GTK_BOX (tile), name);
  gtk_box_append (GTK_BOX (tile), caption);

  g_object_set_data (G_OBJECT (tile), "picture", picture);
  g_object_set_data (G_OBJECT (tile), "icon", icon);
  g_object_set_data (G_OBJECT (tile), "name", name);
  g_object_set_data (G_OBJECT (tile), "caption", caption);

  source = gtk_drag_source_new ();
  gtk_drag_source_set_actions (source, GDK_ACTION_COPY);
  g_signal_connect (source, "prepare", G_CALLBACK (assay_artifact_gallery_tile_drag_prepare_cb), tile);
  g_signal_connect (source, "drag-begin", G_CALLBACK (assay_artifact_gallery_tile_drag_begin_cb), tile);
  gtk_widget_add_controller (tile, GTK_EVENT_CONTROLLER (source));

  gtk_list_item_set_child (list_item, tile);
}

static void
assay_artifact_gallery_bind_tile (GtkSignalListItemFactory *factory,
                                  GtkListItem              *list_item,
                                  AssayArtifactGallery     *self)
{
  AssayArtifactItem *item = gtk_list_item_get_item (list_item);
  GtkWidget *tile = gtk_list_item_get_child (list_item);
  g_autofree char *size = g_format_size (assay_artifact_item_get_bytes (item));
  g_autofree char *caption = NULL;
  g_autofree char *tooltip = NULL;

  /* Translators: a tile caption: the kind (“Figure”), the cell id, the size. */
  caption = g_strdup_printf (_("%s · cell %s · %s"), assay_artifact_gallery_kind_label (assay_artifact_item_get_kind (item)),
                             assay_artifact_item_get_cell_id (item), size);
  tooltip = g_strdup_printf ("%s\n%s", assay_artifact_item_get_name (item), caption);
  gtk_label_set_text (g_object_get_data (G_OBJECT (tile), "name"), assay_artifact_item_get_name (item));
  gtk_label_set_text (g_object_get_data (G_OBJECT (tile), "caption"), caption);
  gtk_widget_set_tooltip_text (tile, tooltip);
  g_object_set_data_full (G_OBJECT (tile), "item", g_object_ref (item), g_object_unref);
  g_hash_table_insert (self->tiles, item, tile);

  assay_artifact_gallery_show_in_tile (tile, item, g_hash_table_lookup (self->thumbnails, item));
  assay_artifact_gallery_request_thumbnail (self, item);
}

static void
assay_artifact_gallery_unbind_tile (GtkSignalListItemFactory *factory,
                                    GtkListItem              *list_item,
                                    AssayArtifactGallery     *self)
{
  GtkWidget *tile = gtk_list_item_get_child (list_item);
  AssayArtifactItem *item = g_object_get_data (G_OBJECT (tile), "item");

  if (item != NULL && g_hash_table_lookup (self->tiles, item) == tile)
    g_hash_table_remove (self->tiles, item);
  assay_artifact_gallery_show_in_tile (tile, NULL, NULL);
  g_object_set_data (G_OBJECT (tile), "item", NULL);
}

/* ---- filtering --------------------------------------------------------------------------- */

static gboolean
assay_artifact_gallery_filter_item (gpointer object,
                                    gpointer user_data)
{
  AssayArtifactGallery *self = user_data;
  AssayArtifactKind kind = assay_artifact_item_get_kind (ASSAY_ARTIFACT_ITEM (object));

  switch (self->filter_kind)
    {
    case ASSAY_GALLERY_FILTER_FIGURES:
      return kind == ASSAY_ARTIFACT_KIND_FIGURE;
    case ASSAY_GALLERY_FILTER_TABLES:
      return kind == ASSAY_ARTIFACT_KIND_TABLE;
    case ASSAY_GALLERY_FILTER_DOCUMENTS:
      return kind == ASSAY_ARTIFACT_KIND_DOCUMENT;
    case ASSAY_GALLERY_FILTER_OTHER:
      return kind == ASSAY_ARTIFACT_KIND_OTHER;
    case ASSAY_GALLERY_FILTER_ALL:
    default:
      return TRUE;
    }
}

static void
assay_artifact_gallery_update_empty (AssayArtifactGallery *self)
{
  static const char * const titles[] = {
    N_("No Artifacts Yet"), N_("No Figures"), N_("No Tables"), N_("No Documents"), N_("No Other Files"),
  };
  guint n_all = self->model != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->model)) : 0;
  guint n_shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));

  if (n_shown > 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "grid");
      return;
    }
  adw_status_page_set_title (self->empty_page, _(n_all == 0 ? titles[0] : titles[self->filter_kind]));
  adw_status_page_set_description (self->empty_page,
                                   n_all == 0
                                   ? _("The figures, tables and files the analysis produces will appear here.")
                                   : _("The analysis has produced none of these yet."));
  gtk_stack_set_visible_child_name (self->stack, "empty");
}

static void
assay_artifact_gallery_items_changed_cb (GListModel           *model,
                                         guint                 position,
                                         guint                 removed,
                                         guint                 added,
                                         AssayArtifactGallery *self)
{
  assay_artifact_gallery_update_empty (self);
}

static void
assay_artifact_gallery_filter_toggled_cb (GtkToggleButton      *button,
                                          AssayArtifactGallery *self)
{
  GtkToggleButton *buttons[] = {
    self->filter_all, self->filter_figures, self->filter_tables,
    self->filter_documents, self->filter_other,
  };

  if (!gtk_toggle_button_get_active (button))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    if (buttons[i] == button)
      assay_artifact_gallery_set_filter (self, i);
}

static void
assay_artifact_gallery_grid_activate_cb (GtkGridView          *grid,
                                         guint                 position,
                                         AssayArtifactGallery *self)
{
  g_autoptr(AssayArtifactItem) item = g_list_model_get_item (G_LIST_MODEL (self->filtered), position);

  if (item != NULL)
    g_signal_emit (self, signals[ARTIFACT_ACTIVATED], 0, item);
}

/* ---- the class --------------------------------------------------------------------------- */

static void
assay_artifact_gallery_dispose (GObject *object)
{
  AssayArtifactGallery *self = ASSAY_ARTIFACT_GALLERY (object);

  assay_artifact_gallery_forget_thumbnails (self);
  if (self->filtered != NULL)
    g_signal_handlers_disconnect_by_func (self->filtered, assay_artifact_gallery_items_changed_cb, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_ARTIFACT_GALLERY);
  for (GtkWidget *child; (child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL;)
    gtk_widget_unparent (child);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->model);

  G_OBJECT_CLASS (assay_artifact_gallery_parent_class)->dispose (object);
}

static void
assay_artifact_gallery_finalize (GObject *object)
{
  AssayArtifactGallery *self = ASSAY_ARTIFACT_GALLERY (object);

  g_clear_pointer (&self->thumbnails, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->failed, g_hash_table_unref);
  g_clear_pointer (&self->tiles, g_hash_table_unref);

  G_OBJECT_CLASS (assay_artifact_gallery_parent_class)->finalize (object);
}

static void
assay_artifact_gallery_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  AssayArtifactGallery *self = ASSAY_ARTIFACT_GALLERY (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_FILTER:
      g_value_set_int (value, self->filter_kind);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_gallery_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  AssayArtifactGallery *self = ASSAY_ARTIFACT_GALLERY (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      assay_artifact_gallery_set_model (self, g_value_get_object (value));
      break;
    case PROP_FILTER:
      assay_artifact_gallery_set_filter (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_artifact_gallery_class_init (AssayArtifactGalleryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = assay_artifact_gallery_dispose;
  object_class->finalize = assay_artifact_gallery_finalize;
  object_class->get_property = assay_artifact_gallery_get_property;
  object_class->set_property = assay_artifact_gallery_set_property;

  properties[PROP_MODEL] = g_param_spec_object ("model", NULL, NULL, ASSAY_TYPE_ARTIFACT_LIST, flags);
  properties[PROP_FILTER] = g_param_spec_int ("filter", NULL, NULL, ASSAY_GALLERY_FILTER_ALL,
                                              ASSAY_GALLERY_FILTER_OTHER, ASSAY_GALLERY_FILTER_ALL,
                                              flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[ARTIFACT_ACTIVATED] =
    g_signal_new ("artifact-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, ASSAY_TYPE_ARTIFACT_ITEM);

  g_type_ensure (ADW_TYPE_STATUS_PAGE);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-artifact-gallery.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, stack);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, empty_page);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, grid);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_all);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_figures);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_tables);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_documents);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_other);
  gtk_widget_class_bind_template_child (widget_class, AssayArtifactGallery, filter_dropdown);
  gtk_widget_class_bind_template_callback (widget_class, assay_artifact_gallery_filter_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_artifact_gallery_grid_activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "assay-artifact-gallery");
}

static void
assay_artifact_gallery_init (AssayArtifactGallery *self)
{
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(GtkSingleSelection) selection = NULL;

  self->thumbnails = g_hash_table_new_full (NULL, NULL, g_object_unref, g_object_unref);
  self->pending = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  self->failed = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  self->tiles = g_hash_table_new (NULL, NULL);

  gtk_widget_init_template (GTK_WIDGET (self));

  self->filter = gtk_custom_filter_new (assay_artifact_gallery_filter_item, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, g_object_ref (GTK_FILTER (self->filter)));
  g_signal_connect (self->filtered,
                    "items-changed",
                    G_CALLBACK (assay_artifact_gallery_items_changed_cb),
                    self);
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->filtered)));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_grid_view_set_model (self->grid, GTK_SELECTION_MODEL (selection));

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (assay_artifact_gallery_setup_tile), self);
  g_signal_connect (factory, "bind", G_CALLBACK (assay_artifact_gallery_bind_tile), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (assay_artifact_gallery_unbind_tile), self);
  gtk_grid_view_set_factory (self->grid, factory);

  g_object_bind_property (self, "filter", self->filter_dropdown, "selected",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  assay_artifact_gallery_update_empty (self);
}

GtkWidget *
assay_artifact_gallery_new (void)
{
  return g_object_new (ASSAY_TYPE_ARTIFACT_GALLERY, NULL);
}

void
assay_artifact_gallery_set_model (AssayArtifactGallery *self,
                                  AssayArtifactList    *model)
{
  g_return_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self));
  g_return_if_fail (model == NULL || ASSAY_IS_ARTIFACT_LIST (model));

  if (self->model == model)
    return;

  assay_artifact_gallery_forget_thumbnails (self);
  self->cancellable = g_cancellable_new ();
  g_set_object (&self->model, model);
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (model));
  assay_artifact_gallery_update_empty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

AssayArtifactList *
assay_artifact_gallery_get_model (AssayArtifactGallery *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self), NULL);
  return self->model;
}

void
assay_artifact_gallery_set_filter (AssayArtifactGallery *self,
                                   AssayGalleryFilter    filter)
{
  GtkToggleButton *buttons[] = {
    self->filter_all, self->filter_figures, self->filter_tables,
    self->filter_documents, self->filter_other,
  };

  g_return_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self));
  g_return_if_fail (filter <= ASSAY_GALLERY_FILTER_OTHER);

  if (self->filter_kind == filter)
    return;
  self->filter_kind = filter;
  gtk_toggle_button_set_active (buttons[filter], TRUE);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  assay_artifact_gallery_update_empty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILTER]);
}

AssayGalleryFilter
assay_artifact_gallery_get_filter (AssayArtifactGallery *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self), ASSAY_GALLERY_FILTER_ALL);
  return self->filter_kind;
}

GListModel *
assay_artifact_gallery_get_visible (AssayArtifactGallery *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self), NULL);
  return G_LIST_MODEL (self->filtered);
}

GdkTexture *
assay_artifact_gallery_get_thumbnail (AssayArtifactGallery *self,
                                      AssayArtifactItem    *item)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self), NULL);
  return g_hash_table_lookup (self->thumbnails, item);
}

guint
assay_artifact_gallery_get_n_pending (AssayArtifactGallery *self)
{
  g_return_val_if_fail (ASSAY_IS_ARTIFACT_GALLERY (self), 0);
  return g_hash_table_size (self->pending);
}
