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
