import { createTheme, type CSSVariablesResolver } from '@mantine/core';

/** Shade 8 of blue keeps white text on buttons and blue links on white above 4.5:1 (WCAG AA). */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 4 },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
  headings: { fontWeight: '700' },
  // People who ask their system for less motion get no transitions.
  respectReducedMotion: true,
});

/**
 * Contrast (WCAG AA, 4.5:1) where Mantine's light scheme falls short: its "dimmed" grey (gray.6) is 3.3:1
 * on white, so descriptions and hints use gray.7 (7:1); its field error red (red.6) is 3.3:1, red.8 is 5.8:1;
 * the title of a teal alert (teal.9) is 4.3:1 on teal.1, 4.7:1 on teal.0; an orange alert's text (orange.8) is
 * 3.2:1 on its light background, orange.9 3.8:1, so it takes a darker orange, #b03a08 (5.4:1).
 */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7]!,
    '--mantine-color-error': 'var(--mantine-color-red-8)',
    '--mantine-color-teal-light': 'var(--mantine-color-teal-0)',
    '--mantine-color-orange-light-color': '#b03a08',
  },
  dark: {},
});
