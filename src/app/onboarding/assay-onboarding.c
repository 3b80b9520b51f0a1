/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Onboarding"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "assay-llm-provider.h"
#include "assay-model-choice.h"
#include "assay-onboarding.h"

typedef struct
{
  char        *base_url;
  GtkWidget   *row;     /* AdwComboRow of the server's models */
} Found;

typedef enum
{
  KEY_UNCHECKED,
  KEY_CHECKING,
  KEY_ACCEPTED,     /* the models are listed: Continue finishes */
  KEY_REFUSED,      /* 401, 403 */
  KEY_CHECK_FAILED, /* the vendor could not say: Continue Anyway is offered */
} KeyState;

/* A cloud vendor's part of the page, or "Another Server"'s: the key is checked by listing the
 * models with it, and kept (by the window, in the keyring) only once the server accepted it
 * or the analyst chose to continue without the check (a vendor that cannot be reached). For
 * another server the address is checked the same way, and its key may be left empty. */
typedef struct
{
  const char           *provider;  /* "openai", "anthropic" */
  const char           *vendor;    /* the name shown, "OpenAI"; NULL for another server */
  AdwEntryRow          *url_row;   /* another server's address; NULL for a vendor */
  AdwPasswordEntryRow  *key_row;
  GtkSpinner           *spinner;
  AdwComboRow          *model_row;
  GtkLabel             *status;
  GtkButton            *continue_button;
  GtkButton            *anyway_button;

  KeyState              state;
  GCancellable         *cancellable;  /* the check in flight */
} KeyCheck;

struct _AssayOnboarding
{
  GtkWidget             parent_instance;

  KeyCheck              openai;
  KeyCheck              anthropic;
  KeyCheck              other;
  AdwPreferencesGroup  *local_group;
  AdwActionRow         *searching_row;
  GtkSpinner           *searching_spinner;

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
assay_onboarding_found_free (Found *found)
{
  g_free (found->base_url);
  g_free (found);
}

static void
assay_onboarding_probe_free (Probe *probe)
{
  g_clear_weak_pointer (&probe->self);
  g_free (probe->base_url);
  g_free (probe->name);
  g_free (probe);
}

static void
assay_onboarding_emit_configured (AssayOnboarding *self,
                                  const char      *provider,
                                  const char      *base_url,
                                  const char      *model,
                                  const char      *key)
{
  g_signal_emit (self, signals[CONFIGURED], 0, provider, base_url, model, key);
}

/* ---- checking a pasted key ---------------------------------------------------------- */

typedef struct
{
  AssayOnboarding *self;         /* a weak pointer: the page may go while the vendor answers */
  KeyCheck        *key_check;    /* in SELF: valid while it is */
  GCancellable    *cancellable;  /* which check this was */
} Check;

static void
assay_onboarding_check_free (Check *check)
{
  g_clear_weak_pointer (&check->self);
  g_clear_object (&check->cancellable);
  g_free (check);
}

/* The key as pasted, without the spaces and line break a copy often brings along. */
static char *
assay_onboarding_key_check_get_key (KeyCheck *check)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (check->key_row))));
}

/* Another server's address as typed, without spaces or a last slash. */
static char *
assay_onboarding_key_check_get_url (KeyCheck *check)
{
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (check->url_row))));
  gsize len = strlen (url);

  while (len > 0 && url[len - 1] == '/')
    url[--len] = '\0';
  return g_steal_pointer (&url);
}

static void
assay_onboarding_key_check_show_status (KeyCheck   *check,
                                        const char *text,
                                        gboolean    is_error)
{
  gtk_label_set_text (check->status, text);
  gtk_widget_set_visible (GTK_WIDGET (check->status), text != NULL);
  if (is_error)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (check->status), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (check->status), "error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (check->status), "error");
      gtk_widget_add_css_class (GTK_WIDGET (check->status), "dim-label");
    }
}

static void
assay_onboarding_key_check_set_state (KeyCheck *check,
                                      KeyState  state)
{
  g_autofree char *key = assay_onboarding_key_check_get_key (check);
  g_autofree char *url = check->url_row != NULL ? assay_onboarding_key_check_get_url (check) : NULL;
  /* Another server may need no key; its address it needs. */
  gboolean can_continue = (url != NULL ? url[0] != '\0' : key[0] != '\0') && state != KEY_CHECKING;

  check->state = state;
  gtk_spinner_set_spinning (check->spinner, state == KEY_CHECKING);
  gtk_widget_set_visible (GTK_WIDGET (check->spinner), state == KEY_CHECKING);
  gtk_widget_set_visible (GTK_WIDGET (check->model_row), state == KEY_ACCEPTED);
  if (check->anyway_button != NULL)
    gtk_widget_set_visible (GTK_WIDGET (check->anyway_button), state == KEY_CHECK_FAILED);
  gtk_widget_set_sensitive (GTK_WIDGET (check->continue_button), can_continue);
  if (can_continue)
    gtk_widget_add_css_class (GTK_WIDGET (check->continue_button), "suggested-action");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (check->continue_button), "suggested-action");
  if (state == KEY_UNCHECKED)
    assay_onboarding_key_check_show_status (check, NULL, FALSE);
}

/* Stops a check in flight and forgets its outcome. */
static void
assay_onboarding_key_check_reset (KeyCheck *check)
{
  g_cancellable_cancel (check->cancellable);
  g_clear_object (&check->cancellable);
  assay_onboarding_key_check_set_state (check, KEY_UNCHECKED);
}

static KeyCheck *
assay_onboarding_check_get_key_check (Check *check)
{
  return check->key_check;
}

/* Why another server's check failed, in words that say what to fix. */
static char *
assay_onboarding_describe_server_error (KeyCheck     *key_check,
                                        const GError *error)
{
  g_autofree char *url = assay_onboarding_key_check_get_url (key_check);
  g_autofree char *key = assay_onboarding_key_check_get_key (key_check);

  if (g_error_matches (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH))
    return key[0] != '\0'
           ? g_strdup (_("The server refused the API key (HTTP 401). Check that it was copied whole "
                         "and that it is still active."))
           : g_strdup (_("The server needs an API key (HTTP 401). Enter the key it gave you."));
  if (g_error_matches (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_NOT_FOUND) ||
      g_error_matches (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_PROTOCOL))
    return g_strdup_printf (_("%s does not answer as an OpenAI-compatible server: it lists no models at "
                              "%s/models. Check the address; it often ends in /v1."), url, url);
  return g_strdup (error->message);
}

/* The transport's messages are written for the analyst and never hold the key: they can be
 * shown as they are. */
static void
assay_onboarding_key_checked_cb (GObject      *source,
                                 GAsyncResult *result,
                                 gpointer      user_data)
{
  Check *check = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = assay_llm_provider_list_models_finish (ASSAY_LLM_PROVIDER (source), result, &error);
  KeyCheck *key_check;

  if (check->self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      assay_onboarding_check_get_key_check (check)->cancellable != check->cancellable)
    {
      assay_onboarding_check_free (check);
      return;
    }

  key_check = assay_onboarding_check_get_key_check (check);
  g_clear_object (&key_check->cancellable);
  if (models != NULL)
    {
      const char *fallback[] = { assay_model_choice_get_default (key_check->provider), NULL };
      g_auto(GStrv) chat = assay_model_choice_filter_chat (key_check->provider, (const char * const *) models);
      const char * const *shown = chat[0] != NULL ? (const char * const *) chat : fallback;
      g_autoptr(GtkStringList) list = NULL;

      if (key_check->url_row != NULL && chat[0] == NULL)
        {
          /* A server with no model loaded: nothing to ask it with. */
          g_autofree char *url = assay_onboarding_key_check_get_url (key_check);
          g_autofree char *text = g_strdup_printf (_("%s answers, but offers no model. Load one on the server, "
                                                     "then check again."), url);

          assay_onboarding_key_check_show_status (key_check, text, TRUE);
          assay_onboarding_key_check_set_state (key_check, KEY_REFUSED);
          assay_onboarding_check_free (check);
          return;
        }
      list = gtk_string_list_new (shown);

      adw_combo_row_set_model (key_check->model_row, G_LIST_MODEL (list));
      adw_combo_row_set_selected (key_check->model_row,
                                  (guint) MAX (0, assay_model_choice_pick_default (key_check->provider, shown)));
      assay_onboarding_key_check_show_status (key_check, NULL, FALSE);
      assay_onboarding_key_check_set_state (key_check, KEY_ACCEPTED);
    }
  else if (key_check->url_row != NULL)
    {
      g_autofree char *text = assay_onboarding_describe_server_error (key_check, error);

      assay_onboarding_key_check_show_status (key_check, text, TRUE);
      assay_onboarding_key_check_set_state (key_check, KEY_REFUSED);
    }
  else if (g_error_matches (error, ASSAY_LLM_ERROR, ASSAY_LLM_ERROR_AUTH))
    {
      g_autofree char *text = g_strdup_printf (_("The key was refused by %s. Check that it was copied whole "
                                                 "and that it is still active."), key_check->vendor);

      assay_onboarding_key_check_show_status (key_check, text, TRUE);
      assay_onboarding_key_check_set_state (key_check, KEY_REFUSED);
    }
  else
    {
      g_autofree char *text = g_strdup_printf (_("The key could not be checked. %s. You can continue "
                                                 "anyway with the model %s."), error->message,
                                               assay_model_choice_get_default (key_check->provider));

      assay_onboarding_key_check_show_status (key_check, text, TRUE);
      assay_onboarding_key_check_set_state (key_check, KEY_CHECK_FAILED);
    }
  assay_onboarding_check_free (check);
}

static void
assay_onboarding_key_check_start (AssayOnboarding *self,
                                  KeyCheck        *key_check)
{
  g_autofree char *key = assay_onboarding_key_check_get_key (key_check);
  g_autofree char *url = key_check->url_row != NULL ? assay_onboarding_key_check_get_url (key_check) : NULL;
  g_autoptr(AssayLlmProvider) provider = NULL;
  g_autofree char *text = NULL;
  const char *base_url = url != NULL ? url : assay_model_choice_get_cloud_base_url (key_check->provider);
  Check *check;

  if (url != NULL && url[0] != '\0' && !g_str_has_prefix (url, "http://") && !g_str_has_prefix (url, "https://"))
    {
      assay_onboarding_key_check_reset (key_check);
      assay_onboarding_key_check_show_status (key_check,
                                              _("Enter the server's address with http:// or https:// in front, "
                                                "e.g. http://host:8000/v1."),
                                              TRUE);
      return;
    }
  if (url != NULL ? url[0] == '\0' : key[0] == '\0')
    return;
  for (const char *p = key; *p != '\0'; p++)
    if (g_ascii_isspace (*p) || g_ascii_iscntrl (*p))
      {
        assay_onboarding_key_check_reset (key_check);
        assay_onboarding_key_check_show_status (key_check,
                                                _("An API key has no spaces or line breaks. Paste it again."),
                                                TRUE);
        return;
      }

  assay_onboarding_key_check_reset (key_check);
  key_check->cancellable = g_cancellable_new ();
  provider = assay_llm_provider_new_for_name (g_str_equal (key_check->provider, "anthropic") ? "anthropic" : "openai",
                                              base_url, key[0] != '\0' ? key : NULL, NULL);
  check = g_new0 (Check, 1);
  g_set_weak_pointer (&check->self, self);
  check->key_check = key_check;
  check->cancellable = g_object_ref (key_check->cancellable);
  assay_llm_provider_list_models_async (provider,
                                        key_check->cancellable,
                                        assay_onboarding_key_checked_cb,
                                        check);

  text = key_check->vendor != NULL ? g_strdup_printf (_("Checking the key with %s…"), key_check->vendor)
                                   : g_strdup_printf (_("Asking %s for its models…"), url);
  assay_onboarding_key_check_show_status (key_check, text, FALSE);
  assay_onboarding_key_check_set_state (key_check, KEY_CHECKING);
}

static void
assay_onboarding_key_check_finish (AssayOnboarding *self,
                                   KeyCheck        *key_check,
                                   const char      *model)
{
  g_autofree char *key = assay_onboarding_key_check_get_key (key_check);
  g_autofree char *url = key_check->url_row != NULL ? assay_onboarding_key_check_get_url (key_check) : NULL;
  g_autofree char *chosen = g_strdup (model);

  /* Nothing of the key stays in the page once it was handed over. */
  gtk_editable_set_text (GTK_EDITABLE (key_check->key_row), "");
  assay_onboarding_key_check_reset (key_check);
  assay_onboarding_emit_configured (self, key_check->provider, url, chosen, key[0] != '\0' ? key : NULL);
}

static void
assay_onboarding_key_check_continue (AssayOnboarding *self,
                                     KeyCheck        *key_check)
{
  GtkStringObject *item;

  switch (key_check->state)
    {
    case KEY_CHECKING:
      break;

    case KEY_ACCEPTED:
      item = adw_combo_row_get_selected_item (key_check->model_row);
      assay_onboarding_key_check_finish (self, key_check,
                                         item != NULL ? gtk_string_object_get_string (item)
                                                      : assay_model_choice_get_default (key_check->provider));
      break;

    case KEY_UNCHECKED:
    case KEY_REFUSED:
    case KEY_CHECK_FAILED:
    default:
      assay_onboarding_key_check_start (self, key_check);
      break;
    }
}

static void
assay_onboarding_openai_continue_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_continue (self, &self->openai);
}

static void
assay_onboarding_anthropic_continue_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_continue (self, &self->anthropic);
}

static void
assay_onboarding_openai_key_changed_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_reset (&self->openai);
}

static void
assay_onboarding_anthropic_key_changed_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_reset (&self->anthropic);
}

static void
assay_onboarding_openai_anyway_cb (AssayOnboarding *self)
{
  if (self->openai.state == KEY_CHECK_FAILED)
    assay_onboarding_key_check_finish (self, &self->openai, assay_model_choice_get_default ("openai"));
}

static void
assay_onboarding_anthropic_anyway_cb (AssayOnboarding *self)
{
  if (self->anthropic.state == KEY_CHECK_FAILED)
    assay_onboarding_key_check_finish (self, &self->anthropic, assay_model_choice_get_default ("anthropic"));
}

static void
assay_onboarding_other_continue_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_continue (self, &self->other);
}

static void
assay_onboarding_other_changed_cb (AssayOnboarding *self)
{
  assay_onboarding_key_check_reset (&self->other);
}

/* ---- servers on this computer ---------------------------------------------------------- */

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
  assay_onboarding_emit_configured (self, "openai", found->base_url,
                                    model ? gtk_string_object_get_string (model) : NULL, NULL);
}

static void
assay_onboarding_use_clicked_cb (GtkButton       *button,
                                 AssayOnboarding *self)
{
  for (guint i = 0; i < self->found->len; i++)
    if (gtk_widget_is_ancestor (GTK_WIDGET (button), ((Found *) g_ptr_array_index (self->found, i))->row))
      assay_onboarding_use_found (self, i);
}

static void
assay_onboarding_update_searching_row (AssayOnboarding *self)
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
assay_onboarding_models_listed_cb (GObject      *source,
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
          g_signal_connect (use, "clicked", G_CALLBACK (assay_onboarding_use_clicked_cb), self);
          adw_action_row_add_suffix (ADW_ACTION_ROW (found->row), use);
          adw_preferences_group_add (self->local_group, found->row);
          g_ptr_array_add (self->found, found);
        }
      else if (error != NULL)
        g_debug ("no model server at %s: %s", probe->base_url, error->message);
      assay_onboarding_update_searching_row (self);
    }
  assay_onboarding_probe_free (probe);
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
      assay_llm_provider_list_models_async (provider,
                                            self->cancellable,
                                            assay_onboarding_models_listed_cb,
                                            probe);
    }
  assay_onboarding_update_searching_row (self);
}

guint
assay_onboarding_get_n_found (AssayOnboarding *self)
{
  g_return_val_if_fail (ASSAY_IS_ONBOARDING (self), 0);
  return self->found->len;
}

static void
assay_onboarding_demo_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  g_signal_emit (widget, signals[DEMO_REQUESTED], 0);
}

/* Leaving the page (another choice made, the window closed) ends the checks: the key of a
 * page nobody looks at is not sent anywhere. */
static void
assay_onboarding_unmap (GtkWidget *widget)
{
  AssayOnboarding *self = ASSAY_ONBOARDING (widget);

  if (self->openai.state == KEY_CHECKING)
    assay_onboarding_key_check_reset (&self->openai);
  if (self->anthropic.state == KEY_CHECKING)
    assay_onboarding_key_check_reset (&self->anthropic);
  if (self->other.state == KEY_CHECKING)
    assay_onboarding_key_check_reset (&self->other);
  GTK_WIDGET_CLASS (assay_onboarding_parent_class)->unmap (widget);
}

static void
assay_onboarding_dispose (GObject *object)
{
  AssayOnboarding *self = ASSAY_ONBOARDING (object);
  GtkWidget *child;

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->openai.cancellable);
  g_cancellable_cancel (self->anthropic.cancellable);
  g_cancellable_cancel (self->other.cancellable);
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
  g_clear_object (&self->openai.cancellable);
  g_clear_object (&self->anthropic.cancellable);
  g_clear_object (&self->other.cancellable);
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
  widget_class->unmap = assay_onboarding_unmap;

  signals[CONFIGURED] = g_signal_new ("configured", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                                      G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  signals[DEMO_REQUESTED] = g_signal_new ("demo-requested", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-onboarding.ui");
#define BIND_KEY_CHECK(vendor, field, id) \
  gtk_widget_class_bind_template_child_full (widget_class, #vendor "_" id, FALSE, \
                                             G_STRUCT_OFFSET (AssayOnboarding, vendor.field))
  BIND_KEY_CHECK (openai, key_row, "row");
  BIND_KEY_CHECK (openai, spinner, "spinner");
  BIND_KEY_CHECK (openai, model_row, "model_row");
  BIND_KEY_CHECK (openai, status, "status");
  BIND_KEY_CHECK (openai, continue_button, "continue_button");
  BIND_KEY_CHECK (openai, anyway_button, "anyway_button");
  BIND_KEY_CHECK (anthropic, key_row, "row");
  BIND_KEY_CHECK (anthropic, spinner, "spinner");
  BIND_KEY_CHECK (anthropic, model_row, "model_row");
  BIND_KEY_CHECK (anthropic, status, "status");
  BIND_KEY_CHECK (anthropic, continue_button, "continue_button");
  BIND_KEY_CHECK (anthropic, anyway_button, "anyway_button");
  BIND_KEY_CHECK (other, url_row, "url_row");
  BIND_KEY_CHECK (other, key_row, "row");
  BIND_KEY_CHECK (other, spinner, "spinner");
  BIND_KEY_CHECK (other, model_row, "model_row");
  BIND_KEY_CHECK (other, status, "status");
  BIND_KEY_CHECK (other, continue_button, "continue_button");
#undef BIND_KEY_CHECK
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, local_group);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, searching_row);
  gtk_widget_class_bind_template_child (widget_class, AssayOnboarding, searching_spinner);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_openai_continue_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_anthropic_continue_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_openai_key_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_anthropic_key_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_openai_anyway_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_anthropic_anyway_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_other_continue_cb);
  gtk_widget_class_bind_template_callback (widget_class, assay_onboarding_other_changed_cb);
  gtk_widget_class_install_action (widget_class, "onboarding.demo", NULL, assay_onboarding_demo_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
assay_onboarding_init (AssayOnboarding *self)
{
  self->openai.provider = "openai";
  self->openai.vendor = "OpenAI";
  self->anthropic.provider = "anthropic";
  self->anthropic.vendor = "Anthropic";
  self->other.provider = "openai";
  gtk_widget_init_template (GTK_WIDGET (self));
  self->found = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_onboarding_found_free);
  self->cancellable = g_cancellable_new ();
}

GtkWidget *
assay_onboarding_new (void)
{
  return g_object_new (ASSAY_TYPE_ONBOARDING, NULL);
}
