import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom lacks what Mantine asks of a browser.
if (typeof window !== 'undefined') {
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  window.scrollTo = () => {};
  if (!('fonts' in document)) {
    Object.defineProperty(document, 'fonts', { value: { addEventListener: () => {}, removeEventListener: () => {} } });
  }
  Element.prototype.scrollIntoView ??= () => {};
}

// findBy… and waitFor wait up to 5 s (1 s by default): CI runs these tests beside two server suites and the browser
// tests on two cores, where a re-render after a fetch has taken over a second. What never shows still fails.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => cleanup());
