import { Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A titled part of an information page (h2, then its paragraphs). */
export function Section({ titre, children }: { titre: string; children: ReactNode }) {
  return (
    <section>
      <Title order={2} size="h3" mb="xs">
        {titre}
      </Title>
      <Stack gap="xs">{children}</Stack>
    </section>
  );
}
