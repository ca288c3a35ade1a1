import { Text } from '@mantine/core';
import type { ReactNode, Ref } from 'react';

/**
 * A success said once to screen readers (role="status") and focusable, so the page can move the focus to it after
 * the action. Teal 9 on white is 5.0:1 (Mantine's green 9 is 4.4:1, below RGAA 3.2's 4.5:1 for small text).
 */
export function Annonce({ ref, size, children }: { ref?: Ref<HTMLParagraphElement>; size?: 'sm'; children: ReactNode }) {
  return (
    <Text role="status" ref={ref} tabIndex={-1} c="teal.9" size={size}>
      {children}
    </Text>
  );
}
