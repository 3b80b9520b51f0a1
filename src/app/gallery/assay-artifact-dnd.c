/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Gallery"

#include "config.h"

#include "assay-artifact-dnd.h"

GdkContentProvider *
assay_artifact_content_provider_new (AssayArtifactItem *item)
{
  g_autoptr(GFile) file = NULL;
  GdkFileList *files;
  GdkContentProvider *providers[2];

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (item), NULL);

  file = assay_artifact_item_get_file (item);
  files = gdk_file_list_new_from_array (&file, 1);
  providers[0] = gdk_content_provider_new_typed (GDK_TYPE_FILE_LIST, files);
  providers[1] = gdk_content_provider_new_typed (G_TYPE_FILE, file);
  g_boxed_free (GDK_TYPE_FILE_LIST, files);
  return gdk_content_provider_new_union (providers, G_N_ELEMENTS (providers));
}

char *
assay_artifact_icon_name (AssayArtifactItem *item)
{
  g_autofree char *type = NULL;
  g_autoptr(GIcon) icon = NULL;

  g_return_val_if_fail (ASSAY_IS_ARTIFACT_ITEM (item), NULL);

  type = g_content_type_from_mime_type (assay_artifact_item_get_mime (item));
  if (type != NULL)
    icon = g_content_type_get_icon (type);
  if (G_IS_THEMED_ICON (icon))
    {
      const char * const *names = g_themed_icon_get_names (G_THEMED_ICON (icon));
      GtkIconTheme *theme = gtk_icon_theme_get_for_display (gdk_display_get_default ());

      for (guint i = 0; names != NULL && names[i] != NULL; i++)
        if (gtk_icon_theme_has_icon (theme, names[i]))
          return g_strdup (names[i]);
    }
  if (type != NULL)
    return g_content_type_get_generic_icon_name (type);
  return g_strdup ("text-x-generic");
}
