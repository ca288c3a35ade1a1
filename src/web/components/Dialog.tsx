import { Modal } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * Mantine's Modal with its header as a plain <div>: its default <header> is a second "banner"
 * landmark for screen readers (the dialog sits outside <main>, in a portal).
 */
export function Dialog({
  opened,
  onClose,
  title,
  size = 'lg',
  fermeAuClicDehors = true,
  children,
}: {
  opened: boolean;
  onClose: () => void;
  title: string;
  size?: string;
  /** false for a form: a click beside it (the dim backdrop) leaves it open with what was typed. */
  fermeAuClicDehors?: boolean;
  children: ReactNode;
}) {
  return (
    <Modal.Root opened={opened} onClose={onClose} size={size} closeOnClickOutside={fermeAuClicDehors}>
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Header component="div">
          <Modal.Title>{title}</Modal.Title>
          <Modal.CloseButton aria-label="Fermer" />
        </Modal.Header>
        <Modal.Body>{children}</Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}
