import { createTheme } from '@mantine/core';

/** Shade 8 of blue keeps white text on buttons and blue links on white above 4.5:1 (WCAG AA). */
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 4 },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
  headings: { fontWeight: '700' },
});
