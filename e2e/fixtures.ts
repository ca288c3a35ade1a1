import { expect, test as base, type Page } from '@playwright/test';

/**
 * The app's pages: `/`, `/logement` and `/logement/nouveau` arrive as HTML prerendered at build, and the
 * shell of the others too (scripts/prerender.ts); the script takes them over once they are on screen. A
 * test acts on a page as someone who waits for it to answer: after `goto` and `reload` of one of the
 * app's pages (HTML with the app's root), any page of any context waits for the app's sign that it is
 * ready (`data-app-prete` on <html>, App.tsx). And the test's page may log no hydration error (the
 * prerendered HTML and the browser's first render differ).
 */
const HYDRATION = /hydrat|Minified React error #(418|423|425)\b/iu;

function waitForTheApp(page: Page): void {
  const ready = async (response: Awaited<ReturnType<Page['goto']>>) => {
    if (response?.headers()['content-type']?.includes('text/html') && (await page.locator('#root').count()) > 0) {
      await page.locator('html[data-app-prete]').waitFor({ state: 'attached' });
    }
    return response;
  };
  const goto = page.goto.bind(page);
  const reload = page.reload.bind(page);
  page.goto = async (url, options) => ready(await goto(url, options));
  page.reload = async (options) => ready(await reload(options));
}

export const test = base.extend<object, object>({
  page: async ({ page }, use) => {
    const hydration: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && HYDRATION.test(message.text())) hydration.push(message.text());
    });
    page.on('pageerror', (error) => {
      if (HYDRATION.test(error.message)) hydration.push(error.message);
    });
    waitForTheApp(page);
    await use(page);
    expect(hydration, 'hydration errors in the console').toEqual([]);
  },
  // Pages of the contexts a test opens itself (another device, another person).
  browser: [
    async ({ browser }, use) => {
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const context = await newContext(options);
        context.on('page', waitForTheApp);
        return context;
      };
      await use(browser);
    },
    { scope: 'worker' },
  ],
});

export { expect };
