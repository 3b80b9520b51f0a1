/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "assay-llm-provider.h"
#include "assay-onboarding.h"

typedef struct
{
  char        *base_url;
  GtkWidget   *row;     /* AdwComboRow of the server's models */
} Found;

struct _AssayOnboarding
{
  GtkWidget             parent_instance;

  AdwPasswordEntryRow  *openai_row;
  AdwPasswordEntryRow  *anthropic_row;
  AdwPreferencesGroup  *local_group;
  AdwActionRow         *searching_row;
  GtkSpinner           *searching_spinner;
  AdwEntryRow          *url_row;

  GCancellable         *cancellable;
  GPtrArray            *found;     /* Found* */
  guint                 pending;
};

G_DEFINE_FINAL_TYPE (AssayOnboarding, assay_onboarding, GTK_TYPE_WIDGET)

enum { CONFIGURED, DEMO_REQUESTED, N_SIGNALS };
static guint signals[N_SIGNALS];

typedef struct
{
  AssayOnboarding *self;  /* a weak pointer: the page may go while a server answers */
  char            *base_url;
  char            *name;
} Probe;

static void
found_free (Found *found)
{
  g_free (found->base_url);
  g_free (found);
}

static void
probe_free (Probe *probe)
{
  g_clear_weak_pointer (&probe->self);
  g_free (probe->base_url);
  g_free (probe->name);
  g_free (probe);
}

static void
emit_configured (AssayOnboarding *self,
                 const char      *provider,
                 const char      *base_url,
                 const char      *model,
                 const char      *key)
{
  g_signal_emit (self, signals[CONFIGURED], 0, provider, base_url, model, key);
}

static void
openai_apply_cb (AssayOnboarding *self)
{
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->openai_row));

  if (*key != '\0')
    emit_configured (self, "openai", NULL, NULL, key);
}

static void
anthropic_apply_cb (AssayOnboarding *self)
{
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->anthropic_row));

  if (*key != '\0')
    emit_configured (self, "anthropic", NULL, NULL, key);
}

static void
url_apply_cb (AssayOnboarding *self)
{
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->url_row))));

  if (g_str_has_prefix (url, "http://") || g_str_has_prefix (url, "https://"))
    emit_configured (self, "openai", url, NULL, NULL);
}

void
assay_onboarding_use_found (AssayOnboarding *self,
                            guint            n)
{
  Found *found;
  GtkStringObject *model;

  g_return_if_fail (ASSAY_IS_ONBOARDING (self));
  g_return_if_fail (n < self->found->len);

  found = g_ptr_array_index (self->found, n);
  model = adw_combo_row_get_selected_item (ADW_COMBO_ROW (found->row));
  emit_configured (self, "openai", found->base_url,
                   model ? gtk_string_object_get_string (model) : NULL, NULL);
}

static void
use_clicked_cb (GtkButton       *button,
                AssayOnboarding *self)
{
  for (guint i = 0; i < self->found->len; i++)
    if (gtk_widget_is_ancestor (GTK_WIDGET (button), ((Found *) g_ptr_array_index (self->found, i))->row))
      assay_onboarding_use_found (self, i);
}

static void
update_searching_row (AssayOnboarding *self)
{
  gboolean searching = self->pending > 0;

  gtk_spinner_set_spinning (self->searching_spinner, searching);
  gtk_widget_set_visible (GTK_WIDGET (self->searching_spinner), searching);
  gtk_widget_set_visible (GTK_WIDGET (self->searching_row), searching || self->found->len == 0);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->searching_row),
                                 searching ? _("Looking for local servers…")
                                           : _("No server found at localhost:11434 (Ollama) or localhost:8080 (llama.cpp)"));
}

static void
models_listed_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Probe *probe = user_data;
  AssayOnboarding *self = probe->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = assay_llm_provider_list_models_finish (ASSAY_LLM_PROVIDER (source), result, &error);

  if (self != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      self->pending--;
      if (models != NULL && models[0] != NULL)
        {
          Found *found = g_new0 (Found, 1);
          g_autoptr(GtkStringList) list = gtk_string_list_new ((const char * const *) models);
          g_autofree char *title = g_strdup_printf ("%s — %s", probe->name, probe->base_url);
          GtkWidget *use = gtk_button_new_with_mnemonic (_("_Use"));

          found->base_url = g_strdup (probe->base_url);
          found->row = adw_combo_row_new ();
          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (found->row), title);
          adw_combo_row_set_model (ADW_COMBO_ROW (found->row), G_LIST_MODEL (list));
          gtk_widget_set_valign (use, GTK_ALIGN_CENTER);
          gtk_widget_add_css_class (use, "suggested-action");
          g_signal_connect (use, "clicked", G_CALLBACK (use_clicked_cb), self);
          adw_action_row_add_suffix (ADW_ACTION_ROW (found->row), use);
          adw_preferences_group_add (self->local_group, found->row);
          g_ptr_array_add (self->found, found);
        }
      else if (error != NULL)
        g_debug ("no model server at %s: %s", probe->base_url, error->message);
      update_searching_row (self);
    }
  probe_free (probe);
}

void
assay_onboarding_detect (AssayOnboarding    *self,
                         const char * const *base_urls,
                         const char * const *names)
{
  g_return_if_fail (ASSAY_IS_ONBOARDING (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  for (guint i = 0; i < self->found->len; i++)
    adw_preferences_group_remove (self->local_group, ((Found *) g_ptr_array_index (self->found, i))->row);
  g_ptr_array_set_size (self->found, 0);
  self->pending = 0;

  for (guint i = 0; base_urls != NULL && base_urls[i] != NULL; i++)
    {
      g_autoptr(AssayLlmProvider) provider = assay_openai_provider_new (base_urls[i], NULL);
      Probe *probe = g_new0 (Probe, 1);

      g_set_weak_pointer (&probe->self, self);
      probe->base_url = g_strdup (base_urls[i]);
      probe->name = g_strdup (names && names[i] ? names[i] : base_urls[i]);
      self->pending++;
      assay_llm_provider_list_models_async (provider, self->cancellable, models_listed_cb, probe);
    }
  update_searching_row (self);
}

guint
assay_onboarding_get_n_found (AssayOnboarding *self)
{
  g_return_val_if_fail (ASSAY_IS_ONBOARDING (self), 0);
  return self->found->len;
}

static void
demo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  g_signal_emit (widget, signals[DEMO_REQUESTED], 0);
}

static void
assay_onboarding_dispose (GObject *object)
{
  AssayOnboarding *self = ASSAY_ONBOARDING (object);
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_ONBOARDING);
  /* The template's root box is not a bound child: unparent it too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (assay_onboarding_parent_class)->dispose (object);
}

static void
assay_onboarding_finalize (GObject *object)
{
  AssayOnboarding *self = ASSAY_ONBOARDING (object);

  g_clear_object (&self->cancellable);
  g_ptr_array_unref (self->found);
  G_OBJECT_CLASS (assay_onboarding_parent_class)->finalize (object);
}

static void
assay_onboarding_class_init (AssayOnboardingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_onboarding_dispose;
  object_class->finalize = assay_onboarding_finalize;

  signals[CONFIGURED] = g_signal_new ("configured", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                                      G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  signals[DEMO_REQUESTED] = g_signal_new ("demo-requested", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-onboarding.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, openai_row);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, anthropic_row);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, local_group);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, searching_row);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, searching_spinner);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, url_row);
  gtk_widget_class_bind_template_callback (widget_class, openai_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, anthropic_apply_cb);
  gtk_widget_class_bind_template_callback (widget_class, url_apply_cb);
  gtk_widget_class_install_action (widget_class, "onboarding.demo", NULL, demo_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_onboarding_init (AssayOnboarding *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->found = g_ptr_array_new_with_free_func ((GDestroyNotify) found_free);
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
assay_onboarding_new (void)
{
  return g_object_new (ASSAY_TYPE_ONBOARDING, NULL);
}
