import { describe, expect, it } from 'vitest';
import { mantineStylesheets, stylesheetImports } from '../scripts/vite-mantine-css.js';

// The per-component Mantine stylesheets the build adds to each page (scripts/vite-mantine-css.ts).
describe('Mantine stylesheets of a component', () => {
  const sheets = mantineStylesheets();

  it('include those of the shared utilities it renders with: a checkbox’s label beside its box (InlineInput)', () => {
    for (const name of ['Checkbox', 'Radio', 'Switch']) expect(sheets.get(name), name).toContain('InlineInput');
  });

  it('put dependencies first, and skip type imports', () => {
    const button = sheets.get('Button')!;
    expect(button.indexOf('UnstyledButton')).toBeLessThan(button.indexOf('Button'));
    expect(stylesheetImports("import { type MantineColor, Checkbox } from '@mantine/core';", sheets)).toContain('@mantine/core/styles/InlineInput.layer.css');
    expect(stylesheetImports("import { type MantineColor } from '@mantine/core';", sheets)).toEqual([]);
  });
});
