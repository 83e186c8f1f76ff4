/**
 * Shows a <dialog> as a modal while open is true, and closes it after
 * (`<dialog use:modal={open}>`). Where showModal is missing (jsdom), the
 * open attribute stands in.
 */
export function modal(dialog: HTMLDialogElement, open: boolean) {
  const apply = (o: boolean) => {
    if (o && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal()
      else dialog.setAttribute('open', '')
    }
    if (!o && dialog.open) {
      if (typeof dialog.close === 'function') dialog.close()
      else dialog.removeAttribute('open')
    }
  }
  apply(open)
  return { update: apply }
}
