import '@mantine/core/styles/Loader.layer.css';
import '@mantine/core/styles/UnstyledButton.layer.css';
import '@mantine/core/styles/CloseButton.layer.css';
// The core component each notice is drawn with (scripts/vite-mantine-css.ts sees only '@mantine/core' imports).
import '@mantine/core/styles/Notification.layer.css';
import { Notifications } from '@mantine/notifications';
import '@mantine/notifications/styles.css';

/**
 * The app's notices (the status-change notice with its « Annuler », features/demandes): a polite live
 * region, present on every page so that a notice outlives the page it came from. Loaded after the first
 * screen (App.tsx imports it lazily): residents' first load does not carry it.
 */
export default function Avis() {
  return <Notifications position="bottom-right" aria-live="polite" />;
}
