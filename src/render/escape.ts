/** Text made safe inside HTML, SVG and XML: element content and attribute values in double quotes. */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
