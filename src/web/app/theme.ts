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

/** Mantine's "dimmed" grey (gray.6) is 3.3:1 on white: descriptions and hints use gray.7 (7:1) instead. */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7]! },
  dark: {},
});
